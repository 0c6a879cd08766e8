/**
 * The recorded candidate lists the match calibration scores names against (test/fixtures/providers, SOURCES.md):
 * each file read by its provider's own parser, as the server reads a live answer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { aniListCandidates } from '../src/catalog/identify/providers/anilist.js';
import { comicVineCandidates } from '../src/catalog/identify/providers/comicvine.js';
import { mangaDexCandidates } from '../src/catalog/identify/providers/mangadex.js';
import { mangaUpdatesCandidates } from '../src/catalog/identify/providers/mangaupdates.js';
import { openLibraryCandidates } from '../src/catalog/identify/providers/openlibrary.js';
import type { ProviderEntry } from '../src/catalog/identify/providers/provider.js';

const FIXTURES = path.resolve(import.meta.dirname, '../test/fixtures/providers');

const PARSERS: Record<string, (body: unknown) => ProviderEntry[]> = {
  anilist: aniListCandidates,
  comicvine: comicVineCandidates,
  mangadex: mangaDexCandidates,
  mangaupdates: mangaUpdatesCandidates,
  openlibrary: openLibraryCandidates,
};

const kept = new Map<string, ProviderEntry[]>();

/** A recorded answer (`mangadex/manga-list-….json`) as candidates. */
export function pool(file: string): ProviderEntry[] {
  const found = kept.get(file);
  if (found) return found;
  const parse = PARSERS[file.split('/')[0]!];
  if (!parse) throw new Error(`no parser for ${file}`);
  const body = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as { response?: unknown };
  // MangaPixer's golden set keeps MangaUpdates' answer under `response`, beside the query it answered.
  const entries = parse(file.includes('/golden-search-') ? body.response : body);
  kept.set(file, entries);
  return entries;
}
