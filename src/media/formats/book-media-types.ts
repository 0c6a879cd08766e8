/**
 * The media type of a book file by its format: what a download answers with and what the feeds' acquisition
 * links declare (they must agree, and be types the reader apps recognise; see docs/opds.md "Media types").
 */
export const BOOK_FILE_MEDIA_TYPES: Readonly<Record<string, string>> = {
  cbz: 'application/vnd.comicbook+zip',
  cbr: 'application/vnd.comicbook-rar',
  epub: 'application/epub+zip',
  pdf: 'application/pdf',
};

export function bookFileMediaType(format: string | null): string {
  return BOOK_FILE_MEDIA_TYPES[format ?? ''] ?? 'application/octet-stream';
}
