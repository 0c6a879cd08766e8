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

const RELATIVE_UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 minutes ago", "in 2 days" (in the browser's language), from `now`. */
export function formatRelative(iso: string | Date, now: number = Date.now()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const seconds = Math.round((date.getTime() - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return rtf.format(Math.round(seconds / size), unit);
  }
  return rtf.format(seconds, 'second');
}

/** A date with its time and how long ago it was: "Dec 1, 2026, 9:37 PM (3 minutes ago)". */
export function formatWhen(iso: string | Date, now: number = Date.now()): string {
  return `${formatDateTime(iso)} (${formatRelative(iso, now)})`;
}

const ISO_TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})\b/g;

/** A sentence from the server with its ISO timestamps (`2026-12-01T21:37:20.980Z`) told as dates in words. */
export function humanizeTimestamps(text: string, now: number = Date.now()): string {
  return text.replace(ISO_TIMESTAMP, (stamp) => (Number.isNaN(new Date(stamp).getTime()) ? stamp : formatWhen(stamp, now)));
}
