import { anilist } from './anilist.js';
import { comicvine } from './comicvine.js';
import { mangadex } from './mangadex.js';
import { mangaupdates } from './mangaupdates.js';
import { metron } from './metron.js';
import { openlibrary } from './openlibrary.js';
import type { MetadataProvider } from './provider.js';

/** The providers Colophon ships, in their default priority. */
export const BUILTIN_PROVIDERS: readonly MetadataProvider[] = [anilist, mangaupdates, mangadex, comicvine, metron, openlibrary];
export type BuiltinName = 'anilist' | 'mangaupdates' | 'mangadex' | 'comicvine' | 'metron' | 'openlibrary';
