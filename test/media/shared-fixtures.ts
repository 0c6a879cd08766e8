import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Real RAR files live next to the repository (never copied into it). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedFixturesDir = resolve(repoRoot, '../shared/fixtures');
export const hasSharedFixtures = existsSync(resolve(sharedFixturesDir, 'test_comic.cbr'));
export const SHARED_FIXTURES_MISSING = `real RAR fixtures not found in ${sharedFixturesDir}`;

export function sharedFixture(name: string): string {
  return resolve(sharedFixturesDir, name);
}
