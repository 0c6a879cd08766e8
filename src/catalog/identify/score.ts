import { distance } from 'fastest-levenshtein';
import { foldTitle } from './names.js';

/**
 * How sure Colophon is that an online database's entry is the series on disk: a score in 0–1, and what to do with
 * the best candidates (apply, ask a person, or say there is no match). The formula is decision 044's.
 */

/** What is known of the series on disk. */
export interface MatchQuery {
  title: string;
  year?: number | null;
  publisher?: string | null;
  /** Books (volumes or issues) on disk: the work has at least as many. */
  count?: number | null;
  /** BCP 47 / ISO 639-1 language of the books. */
  language?: string | null;
  isbn?: string | null;
  /** Edition notes the folder's name carries (FolderTitle.qualifiers). */
  qualifiers?: readonly string[];
}

/** What a provider says of one of its entries. */
export interface MatchCandidate {
  /** The main title first, then every alternate title the provider lists. */
  titles: readonly string[];
  year?: number | null;
  publisher?: string | null;
  /** Volumes or issues the work has, when the provider knows. */
  count?: number | null;
  language?: string | null;
  isbns?: readonly string[];
}

export interface MatchScore {
  score: number;
  /** The parts of the score, for the person who reviews it ("why"). */
  why: {
    title: number;
    matched_title: string;
    year: number | null;
    publisher: number | null;
    count: number | null;
    language: number | null;
  };
}

/** Similarity of two folded titles in 0–1: the better of whole-string edit distance and the same over sorted words. */
export function titleSimilarity(a: string, b: string, atLeast = 0): number {
  const x = foldTitle(a);
  const y = foldTitle(b);
  if (!x || !y) return 0;
  if (x === y) return 1;
  const longest = Math.max(x.length, y.length);
  // Edit distance is at least the difference in length: a title that cannot beat `atLeast` is not compared.
  if (1 - Math.abs(x.length - y.length) / longest <= atLeast) return 0;
  const ratio = (p: string, q: string) => 1 - distance(p, q) / longest;
  return Math.max(ratio(x, y), ratio(sortedWords(x), sortedWords(y)));
}

const sortedCache = new Map<string, string>();
/** A folded title's words in order (kept: the same candidates' titles are compared for every series). */
function sortedWords(folded: string): string {
  let sorted = sortedCache.get(folded);
  if (sorted === undefined) {
    sorted = folded.split(' ').sort().join(' ');
    if (sortedCache.size >= 50_000) sortedCache.clear();
    sortedCache.set(folded, sorted);
  }
  return sorted;
}

const isbnDigits = (isbn: string) => isbn.replace(/[^0-9xX]/g, '').toUpperCase();

/**
 * The score of one candidate. An ISBN both sides share scores 0.99. Otherwise the title decides most
 * (`0.8 × best title similarity over the candidate's titles`), and the other facts both sides know share the last
 * 0.2 equally: the year (1 when equal, 0.5 a year apart, else 0), the publisher (folded titles' similarity), the count
 * (1 when the work has at least the books on disk, else their ratio) and the language (1 equal, else 0). With no other
 * fact known, the title's similarity is the whole score.
 */
export function scoreCandidate(query: MatchQuery, candidate: MatchCandidate): MatchScore {
  let title = 0;
  let matched = candidate.titles[0] ?? '';
  const edition = noteOf(candidate.titles[0] ?? '');
  // An entry whose main title names an edition ("(Official Colored)", "(Novel)") is that edition: the folder is it
  // only when its name says so too; otherwise the plain work comes first. A year in brackets names no edition.
  const factor = edition && !edition.year && !(query.qualifiers ?? []).includes(edition.note) ? EDITION_FACTOR : 1;
  for (const t of candidate.titles) {
    const note = noteOf(t);
    const s =
      Math.max(titleSimilarity(query.title, t, title / factor), note ? titleSimilarity(query.title, note.base, title / factor) : 0) *
      factor;
    if (s > title) [title, matched] = [s, t];
  }
  const year =
    query.year && candidate.year ? (query.year === candidate.year ? 1 : Math.abs(query.year - candidate.year) === 1 ? 0.5 : 0) : null;
  const publisher = query.publisher && candidate.publisher ? titleSimilarity(query.publisher, candidate.publisher) : null;
  const count = query.count && candidate.count ? Math.min(1, candidate.count / query.count) : null;
  const language =
    query.language && candidate.language
      ? query.language.toLowerCase().slice(0, 2) === candidate.language.toLowerCase().slice(0, 2)
        ? 1
        : 0
      : null;
  const why = {
    title: round(title),
    matched_title: matched,
    year,
    publisher: publisher === null ? null : round(publisher),
    count,
    language,
  };
  const wanted = query.isbn ? isbnDigits(query.isbn) : '';
  if (wanted && candidate.isbns?.some((i) => isbnDigits(i) === wanted)) return { score: 0.99, why };
  const facts = [year, publisher, count, language].filter((f): f is number => f !== null);
  const rest = facts.length ? facts.reduce((a, b) => a + b, 0) / facts.length : title;
  return { score: round(0.8 * title + 0.2 * rest), why };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** What an edition's title is worth against a folder that does not name the edition. */
const EDITION_FACTOR = 0.85;

/** A title's trailing bracketed note (an edition, or a year), folded, and the title before it. */
function noteOf(title: string): { base: string; note: string; year: boolean } | null {
  if (!title.endsWith(')') && !title.endsWith(']')) return null;
  const m = /^(.*\S)\s*[([]([^)\]]+)[)\]]\s*$/.exec(title);
  if (!m) return null;
  return { base: m[1]!, note: foldTitle(m[2]!), year: /^\s*(?:19|20)\d\d\s*$/.test(m[2]!) };
}

export interface MatchThresholds {
  /** At or above, and the runner-up at least `margin` lower: applied without asking (setting, default 0.9). */
  auto: number;
  margin: number;
  /** At or above (and not applied): sent to the review queue; below: no match. */
  review: number;
}

export const DEFAULT_THRESHOLDS: MatchThresholds = { auto: 0.9, margin: 0.1, review: 0.7 };

export type MatchDecision = 'apply' | 'review' | 'none';

/** What to do with candidates, best first: apply the best, ask a person, or say there is no match. */
export function decide(scores: readonly number[], thresholds: MatchThresholds = DEFAULT_THRESHOLDS): MatchDecision {
  const [best = 0, runnerUp = 0] = [...scores].sort((a, b) => b - a);
  if (best >= thresholds.auto && best - runnerUp >= thresholds.margin) return 'apply';
  return best >= thresholds.review ? 'review' : 'none';
}
