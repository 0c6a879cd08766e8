import { normaliseNumber, numberSortOf } from './metadata-values.js';

/**
 * What a file name says about a book. Real names mix conventions — scene-style Western comics
 * ("Batman #013 (2013) (Digital) (Zone-Empire)"), manga volumes and chapters ("One Piece v01", "c1001",
 * "第01巻"), French albums ("Astérix T03"), ebooks ("Author - Title") — so the parser looks for markers
 * (volume, chapter, issue number) and reads the series before the first and the title after the last.
 */
export interface ParsedFileName {
  series: string | null;
  title: string | null;
  volume: number | null;
  /** As written, without leading zeros ("13", "12.5", "1a"). */
  number: string | null;
  number_sort: number | null;
  year: number | null;
  /** Month and day of a full date in the name ("Meeting Notes 2020-05-14"); null otherwise. */
  month: number | null;
  day: number | null;
  /** From "Author - Title" ebook names. */
  authors: string[];
  /** Bracketed words that were stripped: edition, scan group, "of 12"… */
  tags: string[];
  /** The name without extension, brackets and stray separators. */
  clean_name: string;
}

export type NameKind = 'comic' | 'ebook';

const BOOK_EXTENSION = /\.(cbz|cbr|cb7|cbt|zip|rar|7z|epub|kepub|pdf|mobi|azw3?)$/i;
const EBOOK_EXTENSION = /\.(epub|kepub|pdf|mobi|azw3?)$/i;

/**
 * A calendar date: `YYYY-MM-DD`, `YYYY.MM.DD`, or `YYYYMMDD` standing alone between separators (a scanner's
 * "Scan_20190612_0001"). A date is a date, never an issue number or a volume: "Meeting Notes 2020-05-14" is
 * not number 5, and its digits are out of reach of every marker.
 */
const DATE = /(?<![\p{L}\p{N}])((?:19|20)\d{2})([-.]?)(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])(?![\p{L}\p{N}])/gu;

interface FoundDate {
  year: number;
  month: number;
  day: number;
}

/** The first date in `text`, and the text with every date blanked out (same length, so offsets still hold). */
function extractDates(text: string): { undated: string; date: FoundDate | null } {
  let date: FoundDate | null = null;
  const undated = text.replace(DATE, (whole, year: string, _sep: string, month: string, day: string) => {
    date ??= { year: Number(year), month: Number(month), day: Number(day) };
    return ' '.repeat(whole.length);
  });
  return { undated, date };
}

const BRACKETS = /\(([^()]*)\)|\[([^[\]]*)\]|\{([^{}]*)\}/g;
const YEAR_GROUP = /^(?:[A-Za-z]{3,9}\.?\s+)?((?:19|20)\d{2})(?:\s*[-\u2013]\s*(?:\d{2}|\d{4}))?$/;

/** A marker and the number it carries, found at [start, end) of the cleaned name. */
interface Marker {
  kind: 'volume' | 'number';
  value: string;
  start: number;
  end: number;
  /** Weak markers (a bare trailing number) only count when no explicit number marker exists. */
  weak?: boolean;
}

const NUM = String.raw`(\d+(?:\.\d+)?)`;
/** Neither preceded nor followed by a letter or digit: "v01" matches in "Saga v01", not in "Dv8". */
const START = String.raw`(?<![\p{L}\p{N}])`;
const END = String.raw`(?![\p{L}\p{N}])`;
/** A chapter range ("c001-c007", "700-705") belongs to its marker, not to the title. */
const RANGE = String.raw`(?:\s*[-\u2013~]\s*(?:c|ch\.?\s*)?\d+(?:\.\d+)?${END})?`;

/**
 * Each marker with a `hint`: a plain pattern every match of the marker contains (same flags, so the same case
 * folding). A name without it skips the marker's scan, whose lookbehind and Unicode classes are tried at every
 * position: most names ("Series 012") carry none of the words, and the scans were most of a name's parsing.
 */
const MARKER_PATTERNS: ReadonlyArray<{ kind: Marker['kind']; pattern: RegExp; hint: RegExp }> = [
  { kind: 'volume', pattern: new RegExp(`${START}(?:volumes?|vols?\\.?|tome|band)\\s*${NUM}${END}`, 'giu'), hint: /vol|tome|band/iu },
  { kind: 'volume', pattern: new RegExp(`${START}(?:v\\.?|t)${NUM}${END}`, 'giu'), hint: /[vt]\.?\d/iu },
  { kind: 'volume', pattern: new RegExp(`第\\s*${NUM}\\s*[巻卷]`, 'gu'), hint: /\u7b2c/u },
  {
    kind: 'number',
    pattern: new RegExp(`${START}(?:chapters?|chap\\.?|ch\\.?|episodes?|ep\\.?|issue|no\\.)\\s*${NUM}${END}${RANGE}`, 'giu'),
    hint: /ch|ep|issue|no\./iu,
  },
  { kind: 'number', pattern: new RegExp(`${START}c${NUM}${END}${RANGE}`, 'giu'), hint: /c\d/iu },
  { kind: 'number', pattern: new RegExp(`#\\s*(-?\\d+(?:\\.\\d+)?[a-z]?|½)${END}`, 'giu'), hint: /#/u },
  { kind: 'number', pattern: new RegExp(`第\\s*${NUM}\\s*[話话]`, 'gu'), hint: /\u7b2c/u },
];

/** A bare number at the very end, or right before " - title": "Batman 001", "Dragon Ball - 001", "Saga 12 - Title". */
const TRAILING_NUMBER = /(?<=^|\s|-)(\d+(?:\.\d+)?[a-z]?)(?:\s*[-\u2013]\s*\d+(?:\.\d+)?)?(?=\s*$|\s+[-\u2013:]\s)/giu;

const SEPARATORS = /^[\s\-\u2013\u2014,:;~_.]+|[\s\-\u2013\u2014,:;~_]+$/g;

function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').replace(SEPARATORS, '').trim();
}

function stripExtension(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(BOOK_EXTENSION, '');
}

/** Underscores are always spaces; dots are too when the name has no spaces at all ("One.Piece.v01"). */
function spaceOut(name: string): string {
  let text = name.replace(/_/g, ' ');
  if (!text.includes(' ') && (text.match(/\./g) ?? []).length >= 2) text = text.replace(/(?<!\d)\.|\.(?!\d)/g, ' ');
  return text;
}

function extractBrackets(text: string): { rest: string; year: number | null; date: FoundDate | null; tags: string[] } {
  let year: number | null = null;
  let date: FoundDate | null = null;
  const tags: string[] = [];
  const rest = text.replace(BRACKETS, (_whole, a?: string, b?: string, c?: string) => {
    const inner = (a ?? b ?? c ?? '').trim();
    const yearMatch = YEAR_GROUP.exec(inner);
    const dated = yearMatch ? null : extractDates(inner);
    if (yearMatch?.[1] && year === null) year = Number(yearMatch[1]);
    else if (dated?.date && dated.undated.trim() === '' && year === null) {
      date = dated.date;
      year = dated.date.year;
    } else if (inner) tags.push(inner);
    return ' ';
  });
  return { rest, year, date, tags };
}

function findMarkers(text: string): Marker[] {
  const markers: Marker[] = [];
  const taken = (start: number, end: number) => markers.some((m) => start < m.end && end > m.start);
  for (const { kind, pattern, hint } of MARKER_PATTERNS) {
    if (!hint.test(text)) continue;
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (match[1] !== undefined && !taken(start, end)) markers.push({ kind, value: match[1], start, end });
    }
  }
  if (!markers.some((m) => m.kind === 'number')) {
    const trailing = [...text.matchAll(TRAILING_NUMBER)].filter((m) => !taken(m.index, m.index + m[0].length));
    // The last bare number is the issue: "100 Bullets 050", "Spider-Man 2099 001".
    const last = trailing.at(-1);
    if (last?.[1] !== undefined)
      markers.push({ kind: 'number', value: last[1], start: last.index, end: last.index + last[0].length, weak: true });
  }
  return markers.sort((a, b) => a.start - b.start);
}

/** "Brandon Sanderson", "J. R. R. Tolkien", "Sanderson, Brandon": capitalised words, no digits. */
function looksLikePersonName(text: string): boolean {
  return /^\p{Lu}[\p{L}'\u2019.-]*(?:,?\s+\p{Lu}[\p{L}'\u2019.-]*){0,4}$/u.test(text);
}

function splitAuthor(text: string, kind: NameKind): { authors: string[]; rest: string } {
  if (kind !== 'ebook') return { authors: [], rest: text };
  const parts = text.split(/\s+[-\u2013]\s+/);
  const [first, ...others] = parts;
  if (!first || others.length === 0 || !looksLikePersonName(first)) return { authors: [], rest: text };
  const rest = others.join(' - ');
  // "Re Zero - Starting Life…, Vol. 1" is a series with a subtitle: a single separator followed by a volume
  // marker is not "Author - Title". Calibre's "Author - Series 01 - Title" has two.
  if (others.length === 1 && findMarkers(rest).some((m) => m.kind === 'volume')) return { authors: [], rest: text };
  return { authors: [first], rest };
}

export function parseFileName(fileName: string, kind?: NameKind): ParsedFileName {
  const nameKind = kind ?? (EBOOK_EXTENSION.test(fileName) ? 'ebook' : 'comic');
  const { rest: unbracketed, year: bracketYear, date: bracketDate, tags } = extractBrackets(spaceOut(stripExtension(fileName)));
  const cleanName = tidy(unbracketed);
  const { authors, rest } = splitAuthor(cleanName, nameKind);
  // Markers and the series are read from the name without its dates; the title keeps them ("Minutes 2020-05-14").
  const { undated, date: nameDate } = extractDates(rest);
  const markers = findMarkers(undated);
  const date = bracketYear !== null ? bracketDate : nameDate;
  const year = bracketYear ?? nameDate?.year ?? null;

  let series: string | null = null;
  let title: string | null = null;
  const first = markers[0];
  const last = markers.at(-1);
  if (first && last) {
    series = tidy(undated.slice(0, first.start)) || null;
    title = tidy(rest.slice(last.end)) || null;
  } else if (nameKind === 'ebook') {
    title = rest || null;
  } else {
    series = tidy(undated) || null;
  }

  const volumeMarker = markers.find((m) => m.kind === 'volume');
  const numberMarker = markers.find((m) => m.kind === 'number');
  const volume = volumeMarker ? Number(volumeMarker.value) : null;
  const number = normaliseNumber(numberMarker?.value === '½' ? '0.5' : (numberMarker?.value ?? null));
  return {
    series,
    title,
    volume: volume !== null && Number.isFinite(volume) ? volume : null,
    number,
    number_sort: numberSortOf(number),
    year,
    month: date?.month ?? null,
    day: date?.day ?? null,
    authors,
    tags,
    clean_name: cleanName,
  };
}
