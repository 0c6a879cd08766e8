export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** "#12 · Title" when the book has a number and its title is not just that number. */
export function bookLabel(book: { title: string; number: string | null }): string {
  if (!book.number || book.title === book.number) return book.title;
  return `#${book.number} · ${book.title}`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Where a metadata value came from, in the words of the book page (the API's `metadata.sources` values). */
export const METADATA_SOURCE_LABEL = {
  comicinfo: 'ComicInfo.xml',
  opf: 'EPUB metadata (OPF)',
  pdf: 'PDF properties',
  filename: 'file name',
  folder: 'folder name',
  file: 'the file itself',
} as const;
export type MetadataSourceKey = keyof typeof METADATA_SOURCE_LABEL;
