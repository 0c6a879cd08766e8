/**
 * Titles as they are compared when a series is identified against an online database: a folder's name cut down to
 * the work's title (what scanlators and rippers add around it comes off), and any title folded so that spellings of
 * the same title compare equal. Decision 044 gives the rules and why.
 */

/** What a folder's name says: the title to search for, and the year and volume range it carried, if any. */
export interface FolderTitle {
  title: string;
  year: number | null;
  /** The last volume a range like "v01-05" names (a lower bound of the work's volume count). */
  volumes: number | null;
  /**
   * Bracketed notes that may name an edition ("Official Colored", "Fan-Colored", "Novel"), folded; years, groups'
   * usual words and the source are not among them. A candidate whose own title carries the same note is that edition.
   */
  qualifiers: string[];
}

/** `[Group]`, `{tags}` and parenthesised notes that are not a year: never part of the title. */
const BRACKETED = /\[[^\]]*\]|\{[^}]*\}|\((?!\s*(?:19|20)\d\d\s*\))[^)]*\)/g;
const YEAR = /\(\s*((?:19|20)\d\d)\s*\)|(?:^|\s)((?:19|20)\d\d)(?=\s*$)/;
/** `v01`, `v01-05`, `vol. 3`, `volume 2`, `t01` (French tomes), with an optional range. */
const VOLUMES = /(?:^|\s)(?:v|vol\.?|volume|t|tome)\s?(\d{1,4})(?:\s?[-\u2013~]\s?(?:v|vol\.?)?\s?(\d{1,4}))?(?=\s|$)/i;
/** Comics' zero-padded issue numbers and ranges: `001`, `001-052` (a title's own number, "Mob Psycho 100", has none). */
const ISSUES = /(?:^|\s)#?0\d{1,3}(?:\s?[-\u2013~]\s?#?(\d{1,4}))?(?=\s|$)/;
/** `c001`, `ch. 12`, `chapter 3`, `#12`, with an optional range. */
const CHAPTERS = /(?:^|\s)(?:c|ch\.?|chapter|#)\s?\d{1,4}(?:\.\d+)?(?:\s?[-\u2013~]\s?\d{1,4}(?:\.\d+)?)?(?=\s|$)/i;
/** Words rippers add after the title: the edition or the source, not the title ("Complete Mystery" keeps its first word). */
const NOISE = /\s(?:digital|webrip|web|scan(?:lation)?s?|raw|complete|omnibus edition|hq|lq|c2c)(?=\s|$)/gi;
/** What a bracketed note is when it names no edition: the source, the ripper's words, a year. */
const NOT_EDITION = /^(?:(?:19|20)\d\d|digital|webrip|web|scans?|scanlations?|raw|hq|lq|c2c|f|complete|ongoing)$/;

/** A folder's (or file's) name as a title to search for, with the year and volume range it names. */
export function folderTitle(name: string): FolderTitle {
  let text = name.replace(/\.(cbz|cbr|cb7|zip|rar|epub|pdf)$/i, '').replace(/_/g, ' ');
  const year = YEAR.exec(text);
  const qualifiers = [...text.matchAll(/\[([^\]]*)\]|\(([^)]*)\)/g)]
    .map((m) => foldTitle(m[1] ?? m[2] ?? ''))
    .filter((q) => q !== '' && !NOT_EDITION.test(q));
  text = text.replace(BRACKETED, ' ');
  const found = year ? Number(year[1] ?? year[2]) : null;
  if (year) text = text.replace(YEAR, ' ');
  const volumes = VOLUMES.exec(text);
  const issues = volumes ? null : ISSUES.exec(text);
  const lastVolume = volumes ? Number(volumes[2] ?? volumes[1]) : issues?.[1] ? Number(issues[1]) : null;
  text = text.replace(VOLUMES, ' ').replace(ISSUES, ' ').replace(CHAPTERS, ' ').replace(NOISE, ' ');
  // What is left around the title: separators and stray punctuation at either end.
  text = text.replace(/\s+/g, ' ').replace(/^[\s\-\u2013:.,]+|[\s\-\u2013:.,]+$/g, '');
  return { title: text || name.trim(), year: found, volumes: lastVolume, qualifiers };
}

/** Katakana to hiragana (U+30A1–U+30F6 → U+3041–U+3096), so that either spelling of a Japanese title compares equal. */
const toHiragana = (text: string): string => text.replace(/[\u30a1-\u30f6]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60));

/**
 * A title folded for comparison: full-width and compatibility forms to plain (NFKC), katakana to hiragana, accents
 * off, case folded, `&` as "and", punctuation as spaces, and spaces collapsed. "ＳＰＹ×ＦＡＭＩＬＹ" and "Spy x Family",
 * "Pokémon" and "Pokemon" compare equal.
 */
export function foldTitle(title: string): string {
  const kept = folded.get(title);
  if (kept !== undefined) return kept;
  const result = fold(title);
  // A library's identification folds the same candidates' titles for every series: kept, within a bound.
  if (folded.size >= FOLDED_MAX) folded.clear();
  folded.set(title, result);
  return result;
}

const FOLDED_MAX = 50_000;
const folded = new Map<string, string>();

function fold(title: string): string {
  return toHiragana(title.normalize('NFKC'))
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\u00d7\u2715]/g, ' x ')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
