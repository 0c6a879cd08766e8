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

const DATE: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' };

/** Every date of the app alike: "Nov 25, 2026" (in the browser's language). */
export function formatDate(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleDateString(undefined, DATE);
}

/** A date with its time, where the time matters (tasks, setting changes): "Nov 25, 2026, 3:48 PM". */
export function formatDateTime(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString(undefined, { ...DATE, hour: 'numeric', minute: '2-digit' });
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

/** "Text: detail." — one full stop, whether or not the detail (a server message) ends with its own. */
export const withDetail = (text: string, detail: string | null | undefined): string =>
  `${text}${detail ? `: ${detail.trim().replace(/[.\s]+$/, '')}` : ''}.`;
