import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';

/** The active interface language, for Intl (the browser's own while no catalogue is active yet). */
const locale = (): string | undefined => i18n.locale || undefined;

/** A size's number in the active language: "1.5" or "1,5"; never grouped, so "1000 KB" stays as it was. */
const sizeNumber = (n: number, digits: number): string =>
  new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).format(n);

/** "512 B", "1.5 MB": the number in the active language, the unit's symbol a message ("Mo" in French). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) {
    const size = sizeNumber(bytes, 0);
    return t`${size} B`;
  }
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    unit += 1;
  }
  const size = sizeNumber(value, value < 10 ? 1 : 0);
  if (unit === 0) return t`${size} KB`;
  if (unit === 1) return t`${size} MB`;
  if (unit === 2) return t`${size} GB`;
  return t`${size} TB`;
}

const DATE: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' };

/** Every date of the app alike: "Nov 25, 2026" (in the interface's language). */
export function formatDate(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : new Intl.DateTimeFormat(locale(), DATE).format(date);
}

/** A date with its time, where the time matters (tasks, setting changes): "Nov 25, 2026, 3:48 PM". */
export function formatDateTime(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? String(iso)
    : new Intl.DateTimeFormat(locale(), { ...DATE, hour: 'numeric', minute: '2-digit' }).format(date);
}

/** "#12 · Title" when the book has a number and its title is not just that number. */
export function bookLabel(book: { title: string; number: string | null }): string {
  const { title, number } = book;
  if (!number || title === number) return title;
  return t`#${number} · ${title}`;
}

/**
 * "3 books": English only (the word is given in English). Left for the screens not yet on the message catalogue;
 * a screen that is uses a Lingui plural instead (`<Plural value={n} one="# book" other="# books" />`).
 */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const METADATA_SOURCE_MESSAGES = {
  opf: msg`EPUB metadata (OPF)`,
  pdf: msg`PDF properties`,
  filename: msg`file name`,
  folder: msg`folder name`,
  file: msg`the file itself`,
};

/**
 * Where a metadata value came from, in the words of the book page (the API's `metadata.sources` values), in the
 * active language each time one is read.
 */
export const METADATA_SOURCE_LABEL = {
  comicinfo: 'ComicInfo.xml',
  get opf() {
    return i18n._(METADATA_SOURCE_MESSAGES.opf);
  },
  get pdf() {
    return i18n._(METADATA_SOURCE_MESSAGES.pdf);
  },
  get filename() {
    return i18n._(METADATA_SOURCE_MESSAGES.filename);
  },
  get folder() {
    return i18n._(METADATA_SOURCE_MESSAGES.folder);
  },
  get file() {
    return i18n._(METADATA_SOURCE_MESSAGES.file);
  },
} as const;
export type MetadataSourceKey = keyof typeof METADATA_SOURCE_LABEL;

/** "Text: detail." — one full stop, whether or not the detail (a server message) ends with its own. */
export const withDetail = (text: string, detail: string | null | undefined): string => {
  if (!detail) return t`${text}.`;
  const reason = detail.trim().replace(/[.\s]+$/, '');
  return t`${text}: ${reason}.`;
};

const RELATIVE_UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 minutes ago", "in 2 days" (in the interface's language), from `now`. */
export function formatRelative(iso: string | Date, now: number = Date.now()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const seconds = Math.round((date.getTime() - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(locale(), { numeric: 'auto' });
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return rtf.format(Math.round(seconds / size), unit);
  }
  return rtf.format(seconds, 'second');
}

/** A date with its time and how long ago it was: "Dec 1, 2026, 9:37 PM (3 minutes ago)". */
export function formatWhen(iso: string | Date, now: number = Date.now()): string {
  const when = formatDateTime(iso);
  const ago = formatRelative(iso, now);
  return t`${when} (${ago})`;
}

const ISO_TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})\b/g;

/** A sentence from the server with its ISO timestamps (`2026-12-01T21:37:20.980Z`) told as dates in words. */
export function humanizeTimestamps(text: string, now: number = Date.now()): string {
  return text.replace(ISO_TIMESTAMP, (stamp) => (Number.isNaN(new Date(stamp).getTime()) ? stamp : formatWhen(stamp, now)));
}
