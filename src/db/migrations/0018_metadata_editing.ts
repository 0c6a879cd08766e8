import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

interface BackfillDb {
  books: { id: string; metadata: string; release_date: string | null; links: string };
}

/**
 * Metadata editing (decision 032): the new editable series and book fields as columns, the per-field locks that
 * keep the file's value beside the person's, and the change history. Books analysed before get their release
 * date and links from the metadata record they already keep.
 */
export const metadataEditing: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('series').addColumn('total_book_count', 'integer').execute();
    await db.schema
      .alterTable('series')
      .addColumn('links', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .alterTable('series')
      .addColumn('alternate_titles', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema.alterTable('books').addColumn('release_date', 'text').execute();
    await db.schema
      .alterTable('books')
      .addColumn('links', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();

    await db.schema
      .createTable('metadata_locks')
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addColumn('field', 'text', (c) => c.notNull())
      .addColumn('entity_type', 'text', (c) => c.notNull())
      .addColumn('file_value', 'text', (c) => c.notNull())
      .addColumn('locked_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('metadata_locks_pk', ['entity_id', 'field'])
      .execute();

    await db.schema
      .createTable('metadata_history')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('group_id', 'text', (c) => c.notNull())
      .addColumn('entity_type', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addColumn('field', 'text', (c) => c.notNull())
      .addColumn('before_value', 'text', (c) => c.notNull())
      .addColumn('after_value', 'text', (c) => c.notNull())
      .addColumn('before_locked', 'integer', (c) => c.notNull())
      .addColumn('after_locked', 'integer', (c) => c.notNull())
      .addColumn('before_file_value', 'text')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('undone_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('metadata_history_entity').on('metadata_history').columns(['entity_id', 'seq']).execute();
    await db.schema.createIndex('metadata_history_group').on('metadata_history').columns(['group_id']).execute();
    await db.schema.createIndex('metadata_history_seq').on('metadata_history').columns(['seq']).execute();

    // Release dates and links of books analysed before these columns existed, from their metadata record.
    const typed = db as unknown as Kysely<BackfillDb>;
    let after = '';
    for (;;) {
      const rows = await typed.selectFrom('books').select(['id', 'metadata']).where('id', '>', after).orderBy('id').limit(500).execute();
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      for (const row of rows) {
        const values = fileReleaseAndLinks(row.metadata);
        if (values.release_date === null && values.links === '[]') continue;
        await typed.updateTable('books').set(values).where('id', '=', row.id).execute();
      }
    }
  },
};

function fileReleaseAndLinks(metadata: string): { release_date: string | null; links: string } {
  try {
    const m = JSON.parse(metadata) as { year?: unknown; month?: unknown; day?: unknown; links?: unknown };
    const pad = (n: unknown) => String(typeof n === 'number' && n >= 1 ? n : 1).padStart(2, '0');
    const release_date = typeof m.year === 'number' ? `${String(m.year).padStart(4, '0')}-${pad(m.month)}-${pad(m.day)}` : null;
    const links = Array.isArray(m.links)
      ? m.links
          .filter(
            (l): l is { url: string; label?: unknown } => !!l && typeof l === 'object' && typeof (l as { url?: unknown }).url === 'string',
          )
          .map((l) => ({ label: typeof l.label === 'string' ? l.label : '', url: l.url }))
      : [];
    return { release_date, links: JSON.stringify(links) };
  } catch {
    return { release_date: null, links: '[]' };
  }
}
