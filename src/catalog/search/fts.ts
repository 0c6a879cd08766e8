import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../../db/connection.js';

/** At most this many words of a query are used; each word at most 64 characters. */
const MAX_TERMS = 12;

/**
 * The words of a search text: runs of letters and digits (any script). Punctuation separates words and is
 * never passed to the engine's query syntax, so no input can form an FTS operator.
 */
export function searchTerms(text: string): string[] {
  return (text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_TERMS).map((t) => t.slice(0, 64));
}

/** A ranked match: `id` of the entity and `rank` (higher is better) for the derived-table join. */
export type RankedMatches = RawBuilder<{ id: string; rank: number }>;

/**
 * Full-text search behind one interface: FTS5 on SQLite, tsvector + GIN on PostgreSQL (migration
 * 0007_search). Every word must match as a prefix ("bat" finds "Batman"), case- and accent-insensitively;
 * results carry a rank (name and title weigh most, then publisher, then summary).
 */
export class FullTextSearch {
  constructor(private readonly dialect: Dialect) {}

  /** Series whose name, title, publisher or summary match; null when the text holds no word. */
  series(text: string): RankedMatches | null {
    const terms = searchTerms(text);
    if (terms.length === 0) return null;
    if (this.dialect === 'sqlite') {
      return sql<{ id: string; rank: number }>`(select d.entity_id as id, -bm25(series_fts, 10.0, 10.0, 4.0, 1.0) as rank
        from series_fts join search_docs d on d.doc_id = series_fts.rowid where series_fts match ${ftsQuery(terms)})`;
    }
    return sql<{ id: string; rank: number }>`(select s.series_id as id, ts_rank(s.document, q.query) as rank
      from series_search s, to_tsquery('simple', colophon_fold(${tsQuery(terms)})) as q(query) where s.document @@ q.query)`;
  }

  /** Books whose title matches; null when the text holds no word. */
  books(text: string): RankedMatches | null {
    const terms = searchTerms(text);
    if (terms.length === 0) return null;
    if (this.dialect === 'sqlite') {
      return sql<{ id: string; rank: number }>`(select d.entity_id as id, -bm25(books_fts) as rank
        from books_fts join search_docs d on d.doc_id = books_fts.rowid where books_fts match ${ftsQuery(terms)})`;
    }
    return sql<{ id: string; rank: number }>`(select s.book_id as id, ts_rank(s.document, q.query) as rank
      from books_search s, to_tsquery('simple', colophon_fold(${tsQuery(terms)})) as q(query) where s.document @@ q.query)`;
  }
}

/** FTS5: every term quoted (no operator can be formed) and marked as a prefix. */
const ftsQuery = (terms: string[]) => terms.map((t) => `"${t.replace(/"/g, '""')}"*`).join(' ');

/** tsquery: prefix terms joined by AND; terms are letters and digits only. */
const tsQuery = (terms: string[]) => terms.map((t) => `${t}:*`).join(' & ');
