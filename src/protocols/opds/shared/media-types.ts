import { bookFileMediaType } from '../../../media/formats/book-media-types.js';

/** Acquisition links carry the type the download answers with (one table, media/formats/book-media-types.ts). */
export const acquisitionMediaType = bookFileMediaType;

export const ATOM_NAVIGATION = 'application/atom+xml;profile=opds-catalog;kind=navigation';
export const ATOM_ACQUISITION = 'application/atom+xml;profile=opds-catalog;kind=acquisition';
export const ATOM_ENTRY = 'application/atom+xml;type=entry;profile=opds-catalog';
export const OPENSEARCH_DESCRIPTION = 'application/opensearchdescription+xml';
export const OPDS2_FEED = 'application/opds+json';
export const OPDS2_PUBLICATION = 'application/opds-publication+json';
export const OPDS_PROGRESSION = 'application/opds-progression+json';
export const DIVINA_MANIFEST = 'application/divina+json';

/** Page image types PSE 1.0 allows; any other page type is converted to JPEG for PSE clients. */
export const PSE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif']);

/** A BCP 47 tag as the OPDS schemas accept it (ComicInfo's LanguageISO can hold anything). */
export function languageTag(value: string | null | undefined): string | null {
  const tag = value?.trim();
  return tag && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(tag) ? tag : null;
}
