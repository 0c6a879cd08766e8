import type { Database } from '../../../db/connection.js';
import { newId, nowIso } from '../../../db/ids.js';
import type { ScanMode } from '../../../events/types.js';

/**
 * What a scan decided about one file, and why: the explainer's record (GET /books/{id}/explain,
 * GET /libraries/{id}/explain). Unchanged files are not recorded (a rescan of 10,000 unchanged files writes
 * nothing): their last decision stands, and the explainer says they were unchanged by size and time.
 */
export type DecisionOutcome = 'added' | 'updated' | 'restored' | 'moved' | 'moved_away' | 'failed' | 'deleted';

export type DecisionReason =
  'new_file' | 'size_changed' | 'mtime_changed' | 'deep_scan' | 'retry_after_error' | 'file_back' | 'same_hash' | 'gone';

export interface DecisionDetail {
  reason: DecisionReason;
  mode: ScanMode;
  /** A targeted scan (folder watching) rather than one of the whole library. */
  targeted: boolean;
  size?: number;
  mtime_ms?: number;
  hash?: string | null;
  /** What the catalog held before (changed files). */
  previous?: { size: number; mtime_ms: number; hash: string | null };
  /** The content differed from the catalog's (by SHA-256). */
  content_changed?: boolean;
  moved_from?: string;
  moved_to?: string;
  error?: string;
}

export interface FileDecision {
  library_id: string;
  path: string;
  book_id: string | null;
  outcome: DecisionOutcome;
  detail: DecisionDetail;
}

/** Changes kept per library in the log (the last decision per file is kept besides, however old). */
export const DECISION_LOG_LIMIT = 1000;

/** Writes decisions: the last per file (replaced) and the bounded log of changes. */
export class DecisionRepository {
  constructor(private readonly database: Database) {}

  async record(decisions: readonly FileDecision[]): Promise<void> {
    if (decisions.length === 0) return;
    const now = nowIso();
    // One row per file and batch: a later decision about the same path in the batch wins.
    const last = new Map<string, FileDecision>();
    for (const d of decisions) last.set(`${d.library_id}\0${d.path}`, d);
    const rows = [...last.values()].map((d) => ({
      library_id: d.library_id,
      path: d.path,
      book_id: d.book_id,
      outcome: d.outcome,
      detail: JSON.stringify(d.detail),
      decided_at: now,
    }));
    const libraries = new Set(rows.map((r) => r.library_id));
    await this.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 200) {
        const chunk = rows.slice(i, i + 200);
        await trx
          .insertInto('file_decisions')
          .values(chunk)
          .onConflict((oc) =>
            oc.columns(['library_id', 'path']).doUpdateSet((eb) => ({
              book_id: eb.ref('excluded.book_id'),
              outcome: eb.ref('excluded.outcome'),
              detail: eb.ref('excluded.detail'),
              decided_at: eb.ref('excluded.decided_at'),
            })),
          )
          .execute();
        await trx
          .insertInto('file_decision_log')
          .values(chunk.map((r) => ({ ...r, id: newId() })))
          .execute();
      }
      for (const libraryId of libraries) {
        const keep = trx
          .selectFrom('file_decision_log')
          .select('id')
          .where('library_id', '=', libraryId)
          .orderBy('decided_at', 'desc')
          .orderBy('id', 'desc')
          .limit(DECISION_LOG_LIMIT);
        await trx
          .deleteFrom('file_decision_log')
          .where('library_id', '=', libraryId)
          .where('id', 'not in', (eb) => eb.selectFrom(keep.as('k')).select('k.id'))
          .execute();
      }
    });
  }
}
