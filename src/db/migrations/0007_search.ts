import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * Full-text search over series (name, title, publisher, summary) and books (title), kept in sync by triggers
 * so that whoever writes the catalog (the scanner, metadata edits) needs to know nothing about it.
 *
 * SQLite: FTS5 tables with the `unicode61 remove_diacritics 2` tokenizer (case- and accent-insensitive). FTS
 * rowids come from `search_docs` (an INTEGER PRIMARY KEY per entity id), never from the catalog tables' own
 * rowids, which VACUUM may renumber.
 *
 * PostgreSQL: `tsvector` side tables with GIN indexes, weighted (name/title A, publisher B, summary C), over
 * text folded by `colophon_fold` (lower case, Latin diacritics removed with translate(): no extension needed).
 */
export const search: DialectMigration = {
  async up(db: Kysely<unknown>, dialect) {
    if (dialect === 'sqlite') await sqliteUp(db);
    else await postgresUp(db);
  },
};

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  const statements = [
    `CREATE TABLE search_docs (doc_id INTEGER PRIMARY KEY, kind TEXT NOT NULL, entity_id TEXT NOT NULL UNIQUE)`,
    `CREATE VIRTUAL TABLE series_fts USING fts5(name, title, publisher, summary, tokenize = 'unicode61 remove_diacritics 2')`,
    `CREATE VIRTUAL TABLE books_fts USING fts5(title, tokenize = 'unicode61 remove_diacritics 2')`,
    `INSERT INTO search_docs (kind, entity_id) SELECT 'series', id FROM series`,
    `INSERT INTO series_fts (rowid, name, title, publisher, summary)
       SELECT d.doc_id, s.name, coalesce(s.title, ''), coalesce(s.publisher, ''), coalesce(s.summary, '') FROM series s JOIN search_docs d ON d.entity_id = s.id`,
    `INSERT INTO search_docs (kind, entity_id) SELECT 'book', id FROM books`,
    `INSERT INTO books_fts (rowid, title) SELECT d.doc_id, b.title FROM books b JOIN search_docs d ON d.entity_id = b.id`,
    `CREATE TRIGGER series_fts_insert AFTER INSERT ON series BEGIN
       INSERT INTO search_docs (kind, entity_id) VALUES ('series', new.id);
       INSERT INTO series_fts (rowid, name, title, publisher, summary)
         VALUES ((SELECT doc_id FROM search_docs WHERE entity_id = new.id), new.name, coalesce(new.title, ''), coalesce(new.publisher, ''), coalesce(new.summary, ''));
     END`,
    `CREATE TRIGGER series_fts_update AFTER UPDATE OF name, title, publisher, summary ON series BEGIN
       UPDATE series_fts SET name = new.name, title = coalesce(new.title, ''), publisher = coalesce(new.publisher, ''), summary = coalesce(new.summary, '')
         WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = new.id);
     END`,
    `CREATE TRIGGER series_fts_delete AFTER DELETE ON series BEGIN
       DELETE FROM series_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = old.id);
       DELETE FROM search_docs WHERE entity_id = old.id;
     END`,
    `CREATE TRIGGER books_fts_insert AFTER INSERT ON books BEGIN
       INSERT INTO search_docs (kind, entity_id) VALUES ('book', new.id);
       INSERT INTO books_fts (rowid, title) VALUES ((SELECT doc_id FROM search_docs WHERE entity_id = new.id), new.title);
     END`,
    `CREATE TRIGGER books_fts_update AFTER UPDATE OF title ON books BEGIN
       UPDATE books_fts SET title = new.title WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = new.id);
     END`,
    `CREATE TRIGGER books_fts_delete AFTER DELETE ON books BEGIN
       DELETE FROM books_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = old.id);
       DELETE FROM search_docs WHERE entity_id = old.id;
     END`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/** Latin letters with diacritics and the letter each folds to (one character each, for translate()). */
function foldTable(): { from: string; to: string } {
  const letters =
    'àáâãäåāăąǎèéêëēĕėęěìíîïĩīĭįǐòóôõöōŏőǒùúûüũūŭůűųǔýÿŷçćĉċčñńņňśŝşšșźżžďţťțĝğġģĥĵķĺļľŕŗřŵ' +
    'ÀÁÂÃÄÅĀĂĄǍÈÉÊËĒĔĖĘĚÌÍÎÏĨĪĬĮǏÒÓÔÕÖŌŎŐǑÙÚÛÜŨŪŬŮŰŲǓÝŸŶÇĆĈĊČÑŃŅŇŚŜŞŠȘŹŻŽĎŢŤȚĜĞĠĢĤĴĶĹĻĽŔŖŘŴ';
  const special: Record<string, string> = { ø: 'o', Ø: 'o', đ: 'd', Đ: 'd', ħ: 'h', Ħ: 'h', ł: 'l', Ł: 'l', ŧ: 't', Ŧ: 't', ı: 'i' };
  let from = '';
  let to = '';
  for (const ch of letters) {
    const base = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    if ([...base].length !== 1) continue;
    from += ch;
    to += base;
  }
  for (const [ch, base] of Object.entries(special)) {
    from += ch;
    to += base;
  }
  return { from, to };
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  const { from, to } = foldTable();
  const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const seriesDocument = (row: string) =>
    `setweight(to_tsvector('simple', colophon_fold(${row}.name)), 'A') || setweight(to_tsvector('simple', colophon_fold(${row}.title)), 'A') || ` +
    `setweight(to_tsvector('simple', colophon_fold(${row}.publisher)), 'B') || setweight(to_tsvector('simple', colophon_fold(${row}.summary)), 'C')`;
  const bookDocument = (row: string) => `setweight(to_tsvector('simple', colophon_fold(${row}.title)), 'A')`;
  const statements = [
    `CREATE OR REPLACE FUNCTION colophon_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
       $$ SELECT translate(lower(coalesce(t, '')), ${quote(from)}, ${quote(to)}) $$`,
    `CREATE TABLE series_search (series_id text PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE, document tsvector NOT NULL)`,
    `CREATE INDEX series_search_document ON series_search USING gin (document)`,
    `CREATE TABLE books_search (book_id text PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE, document tsvector NOT NULL)`,
    `CREATE INDEX books_search_document ON books_search USING gin (document)`,
    `INSERT INTO series_search (series_id, document) SELECT s.id, ${seriesDocument('s')} FROM series s`,
    `INSERT INTO books_search (book_id, document) SELECT b.id, ${bookDocument('b')} FROM books b`,
    `CREATE FUNCTION series_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
       INSERT INTO series_search (series_id, document) VALUES (NEW.id, ${seriesDocument('NEW')})
         ON CONFLICT (series_id) DO UPDATE SET document = excluded.document;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER series_search_sync AFTER INSERT OR UPDATE OF name, title, publisher, summary ON series FOR EACH ROW EXECUTE FUNCTION series_search_sync()`,
    `CREATE FUNCTION books_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
       INSERT INTO books_search (book_id, document) VALUES (NEW.id, ${bookDocument('NEW')})
         ON CONFLICT (book_id) DO UPDATE SET document = excluded.document;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER books_search_sync AFTER INSERT OR UPDATE OF title ON books FOR EACH ROW EXECUTE FUNCTION books_search_sync()`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
