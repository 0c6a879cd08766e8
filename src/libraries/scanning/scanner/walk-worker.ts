/**
 * Worker-thread side of walk-thread.ts: walks one library at a time in blocking calls and posts what it finds.
 * A request is `{ id, root }`; the answers are `found` batches, `folderError`s, then `done` or `failed`.
 */
import { parentPort } from 'node:worker_threads';
import { type FoundFile, walkLibrarySync } from './walk.js';
import type { WalkReply, WalkRequest } from './walk-thread.js';

/** Found files are posted in batches of about this many: one message per folder costs more than the folder. */
const BATCH = 1024;
/** The first batch is posted sooner: a library's first scan starts analysing with it (see the scanner). */
const FIRST_BATCH = 64;

function errorData(err: unknown): { message: string; code?: string } {
  const code = (err as { code?: unknown } | null)?.code;
  return { message: err instanceof Error ? err.message : String(err), ...(typeof code === 'string' ? { code } : {}) };
}

const port = parentPort!;
port.on('message', ({ id, root }: WalkRequest) => {
  const post = (reply: WalkReply) => port.postMessage(reply);
  let batch: FoundFile[] = [];
  let limit = FIRST_BATCH;
  try {
    walkLibrarySync(
      root,
      (files) => {
        for (const file of files) batch.push(file);
        if (batch.length >= limit) {
          post({ id, type: 'found', files: batch });
          batch = [];
          limit = BATCH;
        }
      },
      (dir, err) => post({ id, type: 'folderError', dir, error: errorData(err) }),
    );
    if (batch.length > 0) post({ id, type: 'found', files: batch });
    post({ id, type: 'done' });
  } catch (err) {
    post({ id, type: 'failed', error: errorData(err) });
  }
});
