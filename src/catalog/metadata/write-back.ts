import { randomBytes } from 'node:crypto';
import { access, chmod, chown, constants, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { rewriteZip } from '../../media/archives/zip-rewrite.js';
import { errorMessage } from '../../media/errors.js';
import { findComicInfoName } from '../../media/formats/cbz.js';
import { updateComicInfoXml } from '../../media/metadata/comicinfo-write.js';
import type { TaskQueue } from '../../tasks/queue.js';
import type { TaskContext } from '../../tasks/worker.js';
import { comicInfoElements, writesBack } from './comicinfo-fields.js';
import type { EntityType } from './fields.js';
import type { WriteBackBook, WriteBackRepository } from './write-back-repository.js';

export const WRITE_BACK_TASK = 'write_comicinfo';

/** A book the edit reaches whose file is not written, and why. */
export interface NotWritten {
  book_id: string;
  reason: string;
}

/** What an edit's write-back does (the `write_back` field of edit answers; null when no library of the edit has it on). */
export interface WriteBackReport {
  task_ids: string[];
  queued: number;
  not_written: NotWritten[];
}

/** The result of a `write_comicinfo` task. */
export interface WriteBackResult {
  written: string[];
  not_written: NotWritten[];
}

interface Item {
  book_id: string;
  /** `book:<field>` or `series:<field>`: the edited fields to write. */
  fields: string[];
}

export interface WriteBackDeps {
  repo: WriteBackRepository;
  queue: Pick<TaskQueue, 'enqueue'>;
  /** Reads the written books again, as a deep scan would (scanner): hash, size, time and the files' values follow. */
  reanalyze(libraryId: string, bookIds: readonly string[], signal: AbortSignal): Promise<unknown>;
}

/** The largest ComicInfo.xml read back for rewriting (the readers' limit). */
const MAX_COMICINFO_BYTES = 8 * 1024 * 1024;
const NOT_CBZ = 'only CBZ files are written; this one is';

const readOnly = (mode: number) => (mode & 0o222) === 0;

/** Why a write failed, in words a person can act on. */
function failure(err: unknown, root: string, file: string): string {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const code = (err as { code?: unknown } | null)?.code ?? (cause as { code?: unknown } | null)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return `the file or its folder is not writable (${String(code)})`;
  if (code === 'ENOSPC') return 'the disk is full';
  // Paths are no business of whoever reads the task (a restricted user may not see every series): the book id says which.
  return errorMessage(err)
    .replaceAll(`${file}: `, '')
    .replaceAll(file, 'the file')
    .replaceAll(root + path.sep, '');
}

/**
 * Metadata write-back (decision 036): after a person's edit (or undo), the edited fields are written into the
 * CBZ files of libraries with `scanning_config.write_comicinfo` on, by a `write_comicinfo` task. Each file is
 * copied beside itself with the new ComicInfo.xml and renamed over the old one (never changed in place), then
 * analysed again, which puts its new hash, size and time in the catalog: the next scan sees it unchanged, the same
 * book keeps its id and progress, and "moved" detection compares the new hash.
 */
export class WriteBackService {
  /**
   * The task running for each library in this process: the next one waits for it, analysis included. Two tasks
   * writing one book at once would have the first one's analysis read the second one's file, and the catalog keep
   * a mix of both; one after the other, each starts from the catalog the previous one left.
   */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: WriteBackDeps) {}

  /** Queues the writing of these edited fields (entity id → fields); null when no library concerned writes back. */
  async request(
    type: EntityType,
    edited: ReadonlyMap<string, readonly string[]>,
    libraryIds: readonly string[],
  ): Promise<WriteBackReport | null> {
    const fieldsOf = new Map<string, string[]>();
    for (const [id, fields] of edited) {
      const written = fields.filter((f) => writesBack(type, f)).map((f) => `${type}:${f}`);
      if (written.length > 0) fieldsOf.set(id, written);
    }
    if (fieldsOf.size === 0) return null;
    // The libraries first: an edit where none writes back (the default) reads no book.
    const on = new Set((await this.deps.repo.libraries(libraryIds)).filter((l) => l.write_comicinfo).map((l) => l.id));
    if (on.size === 0) return null;
    const books = await this.deps.repo.books([...fieldsOf.keys()], type === 'series');
    const report: WriteBackReport = { task_ids: [], queued: 0, not_written: [] };
    const byLibrary = new Map<string, Item[]>();
    for (const book of books) {
      if (!on.has(book.library_id)) continue;
      if (book.format !== 'cbz') {
        report.not_written.push({ book_id: book.id, reason: `${NOT_CBZ} ${book.format ?? 'of an unknown format'}` });
        continue;
      }
      const items = byLibrary.get(book.library_id) ?? [];
      items.push({ book_id: book.id, fields: fieldsOf.get(type === 'series' ? book.series_id : book.id)! });
      byLibrary.set(book.library_id, items);
    }
    for (const [libraryId, items] of byLibrary) {
      const { task } = await this.deps.queue.enqueue({ type: WRITE_BACK_TASK, libraryId, payload: { books: items }, maxAttempts: 2 });
      report.task_ids.push(task.id);
      report.queued += items.length;
    }
    return report;
  }

  /** The `write_comicinfo` task: writes each book's file, then has the written ones analysed again. */
  async run(ctx: TaskContext): Promise<WriteBackResult> {
    const key = ctx.task.library_id ?? '';
    const current = (this.running.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => this.runNow(ctx));
    this.running.set(key, current);
    try {
      return await current;
    } finally {
      if (this.running.get(key) === current) this.running.delete(key);
    }
  }

  private async runNow(ctx: TaskContext): Promise<WriteBackResult> {
    ctx.signal.throwIfAborted();
    const payload = (ctx.payload ?? {}) as { books?: Item[] };
    const items = Array.isArray(payload.books) ? payload.books : [];
    const result: WriteBackResult = { written: [], not_written: [] };
    const libraryId = ctx.task.library_id;
    const library = libraryId ? (await this.deps.repo.libraries([libraryId]))[0] : undefined;
    const books = new Map((await this.deps.repo.books(items.map((i) => i.book_id))).map((b) => [b.id, b]));
    for (const [i, item] of items.entries()) {
      ctx.signal.throwIfAborted();
      const book = books.get(item.book_id);
      // No file name: restricted users who read tasks may not see every series of the library.
      ctx.progress({ current: i, total: items.length, message: `Writing ComicInfo.xml into CBZ files (${i + 1} of ${items.length})` });
      const reason =
        !library || !book || book.library_id !== library.id
          ? 'the book is gone'
          : await this.writeOne(book, item, library.path).catch((err: unknown) =>
              failure(err, library.path, path.join(library.path, book.path)),
            );
      if (reason === null) result.written.push(item.book_id);
      else result.not_written.push({ book_id: item.book_id, reason });
    }
    const message = `${result.written.length} written, ${result.not_written.length} not written`;
    ctx.progress({ current: items.length, total: items.length, message });
    if (library && result.written.length > 0) await this.deps.reanalyze(library.id, result.written, ctx.signal);
    return result;
  }

  /** Writes one file; null when written, else why not. Nothing is left behind on failure. */
  private async writeOne(book: WriteBackBook, item: Item, root: string): Promise<string | null> {
    if (book.format !== 'cbz') return `${NOT_CBZ} ${book.format ?? 'of an unknown format'}`;
    const file = path.join(root, book.path);
    const folder = path.dirname(file);
    const info = await stat(file).catch(() => null);
    if (!info) return 'the file is missing';
    const unchanged = (s: { size: number; mtimeMs: number }) => s.size === book.size && Math.floor(s.mtimeMs) === book.mtime_ms;
    // A file changed since its analysis would be rewritten from pages the catalog does not know.
    if (!unchanged(info)) return 'the file changed since the last scan; scan the library, then edit again';
    if (readOnly(info.mode)) return 'the file is read-only';
    const folderInfo = await stat(folder);
    const folderWritable = await access(folder, constants.W_OK).then(
      () => true,
      () => false,
    );
    if (readOnly(folderInfo.mode) || !folderWritable) return 'the folder is read-only';

    const series = await this.deps.repo.series(book.series_id);
    const elements = comicInfoElements(item.fields, book, series);
    // Beside the file (same file system, so the rename is atomic), under a name no scan takes for a book.
    const temp = path.join(folder, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.colophon-tmp`);
    try {
      await rewriteZip(
        file,
        temp,
        {
          pick: findComicInfoName,
          addAs: 'ComicInfo.xml',
          content: (old) => {
            const xml = updateComicInfoXml(old === null ? null : old.toString('utf8'), elements);
            return xml === null ? null : Buffer.from(xml, 'utf8');
          },
          maxOldBytes: MAX_COMICINFO_BYTES,
        },
        info.mode & 0o7777,
      );
      await chmod(temp, info.mode & 0o7777);
      await chown(temp, info.uid, info.gid).catch(() => undefined); // only a privileged process may; the owner stays who wrote it otherwise
      const handle = await open(temp, 'r+');
      try {
        await handle.sync(); // on disk before it replaces the old file
      } finally {
        await handle.close();
      }
      const now = await stat(file).catch(() => null);
      if (!now || !unchanged(now)) throw new Error('the file changed while it was being written; scan the library, then edit again');
      await rename(temp, file);
      return null;
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      return failure(err, root, file);
    }
  }
}
