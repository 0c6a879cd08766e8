import type { ProviderSettings } from './providers.js';

export type Role = 'admin' | 'maintainer' | 'reader';
const RANK: Record<Role, number> = { reader: 0, maintainer: 1, admin: 2 };

/** What Colophon reads from the provider's claims (ID token, completed by userinfo). */
export interface ProviderClaims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  preferred_username?: unknown;
  name?: unknown;
  [claim: string]: unknown;
}

/** The groups the claim names: an array of strings, or one string (some providers send a space-separated list). */
export function groupsOf(claims: ProviderClaims, claim: string): string[] {
  const value = claims[claim];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

/**
 * The role the provider's groups give (the highest of the mapped ones, else `default_role`), or undefined when
 * the provider maps no groups (then Colophon's own role stays as the administrator set it).
 */
export function mappedRole(provider: ProviderSettings, claims: ProviderClaims): Role | undefined {
  if (!provider.groups_claim) return undefined;
  let best: Role = provider.default_role;
  let matched = false;
  for (const group of groupsOf(claims, provider.groups_claim)) {
    const role = provider.role_map[group];
    if (!role) continue;
    if (!matched || RANK[role] > RANK[best]) best = role;
    matched = true;
  }
  return best;
}

/**
 * The libraries the provider's groups give: null for every library (a group maps to `*`), else the ids of the
 * libraries named (by id or by name, case-insensitive) by any of the person's groups — none when no group is
 * mapped. Undefined when the provider maps no libraries (Colophon's own library access then stays as set).
 * A name that matches no library gives nothing: a mapping never widens access by mistake.
 */
export function mappedLibraries(
  provider: ProviderSettings,
  claims: ProviderClaims,
  libraries: readonly { id: string; name: string }[],
): string[] | null | undefined {
  if (!provider.groups_claim || Object.keys(provider.library_map).length === 0) return undefined;
  const ids = new Set<string>();
  for (const group of groupsOf(claims, provider.groups_claim)) {
    for (const wanted of provider.library_map[group] ?? []) {
      if (wanted.trim() === '*') return null;
      const key = wanted.trim().toLowerCase();
      for (const library of libraries) if (library.id === wanted.trim() || library.name.toLowerCase() === key) ids.add(library.id);
    }
  }
  return [...ids].sort();
}

/** The provider's e-mail address when it says the address is verified (the only one Colophon matches accounts by). */
export function verifiedEmail(claims: ProviderClaims): string | undefined {
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  return email && claims.email_verified === true ? email : undefined;
}

/** A username candidate from the claims, in Colophon's username alphabet (schemas.ts Username). */
export function usernameCandidate(claims: ProviderClaims): string {
  const sources = [claims.preferred_username, typeof claims.email === 'string' ? claims.email.split('@')[0] : undefined, claims.name];
  for (const source of sources) {
    if (typeof source !== 'string') continue;
    const cleaned = source
      .normalize('NFC')
      .replace(/\s+/g, '.')
      .replace(/[^\p{L}\p{N}._-]/gu, '')
      .slice(0, 60);
    if (cleaned.length >= 2 && cleaned.toLowerCase() !== 'api') return cleaned;
  }
  return 'user';
}
