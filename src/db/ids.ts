import { v7 } from 'uuid';

/** UUID v7: sorts by creation time, so ids make stable tie-breakers in ordered lists. */
export const newId = (): string => v7();

export const nowIso = (): string => new Date().toISOString();

export const toBool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const fromBool = (v: boolean): number => (v ? 1 : 0);
