import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { CustomCoversTable } from '../../db/tables/covers.js';

export type CustomCoverRow = Selectable<CustomCoversTable>;

/** What a cover belongs to. */
export interface CoverTarget {
  kind: 'series' | 'book';
  id: string;
}

export type NewCustomCover = Omit<CustomCoverRow, 'id' | 'series_id' | 'book_id'>;

const column = (target: CoverTarget) => (target.kind === 'series' ? 'series_id' : 'book_id');

/** The covers people chose, one per series or book. */
export class CustomCoversRepository {
  constructor(private readonly db: Kysely<DB>) {}

  get(target: CoverTarget): Promise<CustomCoverRow | undefined> {
    return this.db.selectFrom('custom_covers').selectAll().where(column(target), '=', target.id).executeTakeFirst();
  }

  /** Sets the target's cover; returns the row it replaced (its image may be unused now). */
  async put(target: CoverTarget, cover: NewCustomCover): Promise<CustomCoverRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const previous = await trx.selectFrom('custom_covers').selectAll().where(column(target), '=', target.id).executeTakeFirst();
      if (previous) await trx.deleteFrom('custom_covers').where('id', '=', previous.id).execute();
      await trx
        .insertInto('custom_covers')
        .values({
          id: randomUUID(),
          series_id: target.kind === 'series' ? target.id : null,
          book_id: target.kind === 'book' ? target.id : null,
          ...cover,
        })
        .execute();
      return previous;
    });
  }

  /** Removes the target's cover; returns the removed row. */
  async remove(target: CoverTarget): Promise<CustomCoverRow | undefined> {
    const previous = await this.get(target);
    if (previous) await this.db.deleteFrom('custom_covers').where('id', '=', previous.id).execute();
    return previous;
  }

  /** Whether any cover still uses an image (two targets may share one: the same page chosen twice). */
  async imageInUse(hash: string): Promise<boolean> {
    const row = await this.db.selectFrom('custom_covers').select('id').where('image_hash', '=', hash).executeTakeFirst();
    return row !== undefined;
  }
}
