import { resolve } from 'node:path';

/** Real RAR files made by a RAR archiver (which tests cannot run), kept with their sources in test/fixtures/SOURCES.md. */
const fixturesDir = resolve(import.meta.dirname, '../fixtures');

export function realFixture(name: string): string {
  return resolve(fixturesDir, name);
}
