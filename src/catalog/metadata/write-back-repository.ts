import type { Database } from '../../db/connection.js';
import { parseJsonColumn } from '../../db/json-column.js';
import { chunks } from '../../util/chunks.js';

type Row = Record<string, unknown>;

/** A present book as write-back needs it: where its file is, what the catalog knows of it, its fields. */
export interface WriteBackBook extends Row {
  id: string;
  library_id: string;
  series_id: string;
  path: string;
  format: string | null;
  size: number;
  mtime_ms: number;
}

const IN_CHUNK = 500;
const BOOK_COLUMNS = [
  'id',
  'library_id',
  'series_id',
  'path',
  'format',
  'size',
  'mtime_ms',
  'title',
  'number',
  'summary',
  'release_date',
  'authors',
  'tags',
  'isbn',
  'links',
] as const;

/** SQL of metadata write-back: the books whose files an edit reaches, their series and libraries. */
export class WriteBackRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** Present books by id, or (`bySeries`) the present books of these series. */
  async books(ids: readonly string[], bySeries = false): Promise<WriteBackBook[]> {
    const out: WriteBackBook[] = [];
    for (const part of chunks([...new Set(ids)], IN_CHUNK)) {
      const rows = await this.db
        .selectFrom('books')
        .select(BOOK_COLUMNS)
        .where(bySeries ? 'series_id' : 'id', 'in', part)
        .where('deleted_at', 'is', null)
        .execute();
      for (const r of rows) out.push({ ...r, size: Number(r.size), mtime_ms: Number(r.mtime_ms) });
    }
    return out;
  }

  async series(id: string): Promise<Row | undefined> {
    return (await this.db.selectFrom('series').selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
  }

  /**
   * Libraries with whether they write edits back (`scanning_config.write_comicinfo`, off when absent): read here
   * rather than through libraries, which depends on the scanner, which depends on this feature.
   */
  async libraries(ids: readonly string[]): Promise<{ id: string; path: string; write_comicinfo: boolean }[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('libraries')
      .select(['id', 'path', 'scanning_config'])
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return rows.map((r) => ({
      id: r.id,
      path: r.path,
      write_comicinfo: parseJsonColumn<{ write_comicinfo?: unknown }>(r.scanning_config, {}).write_comicinfo === true,
    }));
  }
}
