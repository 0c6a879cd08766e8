import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { foldTitle } from '../../catalog/index.js';
import { parseJsonColumn } from '../../db/json-column.js';
import type { EventBus } from '../../events/bus.js';
import type { InboxEventName } from '../../events/types.js';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.js';
import { type AccessService, type Caller, inScope, scopeFor } from '../../identity/index.js';
import { fill, sentence } from '../../i18n/messages.js';
import type { CatalogAnalysis } from '../../media/index.js';
import type { MetadataSource } from '../../media/metadata/metadata-types.js';
import { checkLibraryPath, withinAny } from '../paths.js';
import type { LibraryRepository, LibraryRow } from '../repository.js';
import type { FileAnalyzer } from '../scanning/scanner/analyzer.js';
import { titleFromFileName } from '../scanning/scanner/analyzer.js';
import type { ScanService } from '../scanning/service.js';
import { ContentChanged, freeName, moveNoClobber, NameTaken } from './file-move.js';
import { type InboxFile, InboxFolderWatch, REJECTED_FOLDER } from './folder-watch.js';
import { parseTemplate, renderTemplate, TemplateError, type NamingTemplate, type TemplateValues } from './naming-template.js';
import type { InboxFolderRow, InboxItemPatch, InboxItemRow, InboxRepository, SeriesForMatch } from './repository.js';

/** A filing older than this when the server starts was cut short by a stopped process. */
const STALE_FILING_MS = 60 * 60 * 1000;

export const DEFAULT_TEMPLATE = '{series}/{series}[ v{volume:02}][ #{number:03}][ ({year})].{ext}';

/** What a person may change of a proposal (PATCH /inbox/items/{id}). */
export interface ItemChanges {
  series_id?: string | null;
  series_name?: string;
  number?: string | null;
  volume?: number | null;
  year?: number | null;
  title?: string | null;
  proposed_path?: string;
}

export type DuplicateChoice = 'keep_both' | 'replace';

export interface FolderInput {
  path: string;
  library_id: string;
  template?: string | undefined;
  auto_file?: boolean | undefined;
}

export interface InboxDeps {
  repo: InboxRepository;
  libraries: LibraryRepository;
  /** The catalog's access rules: an item matched to a series the caller may not see is not shown to them. */
  access: AccessService;
  analyzer: () => FileAnalyzer;
  scans: ScanService;
  bus: EventBus;
  /** The identification's automatic threshold (setting `metadata_auto_threshold`): a match at or above it is certain. */
  autoThreshold: () => number;
  /**
   * Online identification (when providers are turned on): the works a title names, scored, best first. A file whose
   * series matches no series of the library by name matches one that identification found to be the same work.
   */
  identifyOnline?: (
    title: string,
    year: number | null,
  ) => Promise<Array<{ provider: string; external_id: string; title: string; score: number }>>;
  /** Readers' progress of a book moved in from elsewhere, given to the book it became. */
  carryProgress: (fromBookId: string, toBookId: string) => Promise<void>;
  allowedRoots: readonly string[];
  log: { warn(obj: object, msg: string): void };
  quietMs: number;
  checkMs: number;
}

/** Whatever went wrong with a file system call, as a sentence's end ("permission denied (EACCES)"). */
function fsProblem(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${e.message}` : String(err);
}

/** What a caller who may not see the other copy is told of a duplicate. */
const phraseDuplicateElsewhere = sentence('The same file is already in a library you do not see: keep both, or reject this one');

const SERIES_REASON: Record<MetadataSource, string> = {
  comicinfo: sentence('The series "{0}" is named in the file\'s ComicInfo.xml'),
  opf: sentence('The series "{0}" is named in the book\'s OPF metadata'),
  pdf: sentence('The series "{0}" is named in the PDF\'s properties'),
  filename: sentence('The series "{0}" is read from the file name'),
  folder: sentence('The series "{0}" is the name of the folder the file came in'),
  file: sentence('The series "{0}" is read from the file name'),
};

const NUMBER_REASON: Record<MetadataSource, string> = {
  comicinfo: sentence("The number {0} is given by the file's ComicInfo.xml"),
  opf: sentence("The number {0} is given by the book's OPF metadata"),
  pdf: sentence("The number {0} is given by the PDF's properties"),
  filename: sentence('The number {0} is read from the file name'),
  folder: sentence('The number {0} is read from the file name'),
  file: sentence('The number {0} is read from the file name'),
};

/** The inbox's proposal for a file: what it is, where it goes, how sure, and why. */
interface Proposal {
  seriesId: string | null;
  seriesName: string;
  number: string | null;
  volume: number | null;
  year: number | null;
  title: string | null;
  score: number;
  reasons: string[];
}

interface Metadata {
  title: string | null;
  series: string | null;
  number: string | null;
  volume: number | null;
  year: number | null;
  publisher: string | null;
  authors: string[];
  page_count: number;
  format: string;
}

/**
 * The inbox: folders watched for new files (folder-watch.ts), each file analysed as a scan would, matched to a
 * series of the folder's library or proposed as a new one, named by the folder's template and put in the review
 * queue; accepted items are moved into the library (file-move.ts) and a targeted scan makes them books. Nothing
 * in an inbox is in the catalog, so no feed, protocol or list can show it before it is filed.
 */
export class InboxService {
  private readonly watches = new Map<string, InboxFolderWatch>();
  private readonly holder = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** One file at a time per folder: the watcher's sweep and an upload finishing do not analyse the same file twice. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly rescans = new Map<string, number>();

  constructor(private readonly deps: InboxDeps) {}

  // Folders -----------------------------------------------------------------------------------------------------

  /** The folders of libraries the caller sees (a maintainer kept out of a library is kept out of its inbox). */
  async folders(caller: Caller): Promise<InboxFolderRow[]> {
    const scope = scopeFor(caller);
    return (await this.deps.repo.listFolders()).filter((f) => inScope(scope, f.library_id));
  }

  watchOf(folderId: string): { state: string; being_written: string[] } {
    const watch = this.watches.get(folderId);
    if (!watch) return { state: this.running ? 'elsewhere' : 'stopped', being_written: [] };
    return { state: watch.state, being_written: watch.beingWritten() };
  }

  async folder(id: string, caller?: Caller): Promise<InboxFolderRow> {
    const row = await this.deps.repo.getFolder(id);
    if (!row || (caller && !inScope(scopeFor(caller), row.library_id))) throw notFound('Inbox folder');
    return row;
  }

  private async library(caller: Caller, id: string): Promise<LibraryRow> {
    const library = await this.deps.libraries.get(id);
    if (!library || !inScope(scopeFor(caller), id)) throw badRequest('library_id names no library', { field: 'library_id' });
    return library;
  }

  /** A template that parses; its mistake as a 400 naming where it is. */
  template(source: string): NamingTemplate {
    try {
      return parseTemplate(source);
    } catch (err) {
      if (err instanceof TemplateError) throw new AppError(400, 'BadRequest', err.message, { field: 'template', at: err.at });
      throw err;
    }
  }

  /** Where sample books would go under a template (the live preview of the folder form). */
  preview(source: string): { examples: Array<{ values: TemplateValues; path: string | null; problem: string | null }> } {
    const template = this.template(source);
    const samples: TemplateValues[] = [
      { series: 'Saga', number: '7', volume: 2, year: 2013, title: 'Chapter Seven', publisher: 'Image', ext: 'cbz', original: 'saga_007' },
      { series: 'One Piece', volume: 101, number: '1015', year: 2022, publisher: 'Shueisha', ext: 'cbz', original: 'One Piece v101' },
      { series: 'Dune', title: 'Dune', year: 1965, publisher: 'Chilton', ext: 'epub', original: 'Frank Herbert - Dune' },
    ];
    return {
      examples: samples.map((values) => {
        try {
          return { values, path: renderTemplate(template, values), problem: null };
        } catch (err) {
          if (err instanceof TemplateError) return { values, path: null, problem: err.message };
          throw err;
        }
      }),
    };
  }

  /** An inbox folder must exist, be readable and writable, and lie outside every library (and they outside it). */
  private async checkFolderPath(input: string, selfId: string | null): Promise<string> {
    const libraries = await this.deps.libraries.list();
    const others = (await this.deps.repo.listFolders()).filter((f) => f.id !== selfId).map((f) => ({ id: f.id, path: f.path }));
    let normalised: string;
    try {
      normalised = await checkLibraryPath(input, [...libraries.map((l) => ({ id: l.id, path: l.path })), ...others], {
        allowedRoots: this.deps.allowedRoots,
        detailedErrors: true,
      });
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 409)
        throw conflict('An inbox folder cannot be inside a library or another inbox, nor hold one', err.details);
      throw err;
    }
    try {
      await access(normalised, constants.W_OK);
    } catch {
      throw badRequest('The server cannot write to this folder: files could not be moved out of it', { field: 'path' });
    }
    return normalised;
  }

  async createFolder(caller: Caller, input: FolderInput): Promise<InboxFolderRow> {
    const template = input.template ?? DEFAULT_TEMPLATE;
    this.template(template);
    await this.library(caller, input.library_id);
    const folderPath = await this.checkFolderPath(input.path, null);
    const now = new Date().toISOString();
    const id = randomUUID();
    await this.deps.repo.insertFolder({
      id,
      path: folderPath,
      library_id: input.library_id,
      template,
      auto_file: input.auto_file ? 1 : 0,
      created_at: now,
      updated_at: now,
    });
    await this.check();
    return this.folder(id);
  }

  async updateFolder(caller: Caller, id: string, input: FolderInput): Promise<InboxFolderRow> {
    const before = await this.folder(id, caller);
    const template = input.template ?? before.template;
    this.template(template);
    await this.library(caller, input.library_id);
    const folderPath = path.resolve(input.path) === before.path ? before.path : await this.checkFolderPath(input.path, id);
    await this.deps.repo.updateFolder(id, {
      path: folderPath,
      library_id: input.library_id,
      template,
      auto_file: (input.auto_file ?? before.auto_file === 1) ? 1 : 0,
      updated_at: new Date().toISOString(),
    });
    if (folderPath !== before.path) await this.stopWatch(id);
    await this.check();
    // Waiting items are proposed again under the new template or library (a person's edits are kept).
    const after = await this.folder(id);
    if (after.template !== before.template || after.library_id !== before.library_id)
      for (const item of await this.deps.repo.waitingIn(id)) await this.reconsider(after, item).catch(() => undefined);
    return after;
  }

  async deleteFolder(caller: Caller, id: string): Promise<void> {
    await this.folder(id, caller);
    await this.stopWatch(id);
    await this.deps.repo.deleteFolder(id);
  }

  // Watching ----------------------------------------------------------------------------------------------------

  async start(): Promise<void> {
    this.running = true;
    // A move cut short by a stopped process (its copy is a hidden .part beside the target, removed on the next try).
    const stale = await this.deps.repo.staleFiling(new Date(Date.now() - STALE_FILING_MS).toISOString());
    for (const item of stale)
      await this.deps.repo.updateItem(item.id, {
        status: 'failed',
        problem: sentence('Filing was interrupted (the server stopped): try again'),
        updated_at: new Date().toISOString(),
      });
    await this.check();
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.check()
          .catch((err: unknown) => this.deps.log.warn({ err }, 'inbox: folders not looked at'))
          .finally(() => {
            if (this.running) tick();
          });
      }, this.deps.checkMs);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    for (const id of [...this.watches.keys()]) await this.stopWatch(id);
    await Promise.allSettled([...this.chains.values()]);
  }

  private async stopWatch(id: string): Promise<void> {
    const watch = this.watches.get(id);
    if (!watch) return;
    this.watches.delete(id);
    await watch.close();
    await this.deps.repo.releaseLease(id, this.holder).catch(() => undefined);
  }

  private checking: Promise<void> = Promise.resolve();

  /** One look at a time (the timer, a folder added or changed): a look never works from a list another has outdated. */
  private check(): Promise<void> {
    const next = this.checking.then(() => this.checkNow());
    this.checking = next.catch(() => undefined);
    return next;
  }

  /** Leases renewed, folders gone stopped, new ones watched; every watched folder swept (a missed event is caught here). */
  private async checkNow(): Promise<void> {
    if (!this.running) return;
    const folders = await this.deps.repo.listFolders();
    const ids = new Set(folders.map((f) => f.id));
    for (const id of [...this.watches.keys()]) if (!ids.has(id)) await this.stopWatch(id);
    for (const folder of folders) {
      const held = await this.deps.repo.lease(folder.id, this.holder, this.deps.checkMs * 3);
      const watch = this.watches.get(folder.id);
      if (!held) {
        if (watch) await this.stopWatch(folder.id);
        continue;
      }
      if (watch && watch.path === folder.path) {
        watch.sweepSoon();
        continue;
      }
      if (watch) await this.stopWatch(folder.id);
      if (!this.running) return;
      const created = new InboxFolderWatch(
        folder.path,
        this.deps.quietMs,
        (files) => this.stable(folder.id, files),
        (err) => this.deps.log.warn({ err, folder: folder.path }, 'inbox: watching a folder failed'),
      );
      this.watches.set(folder.id, created);
      await created.start();
    }
  }

  /** Files of a folder that stopped changing: analysed one after another; waiting items whose file went are forgotten. */
  private async stable(folderId: string, files: readonly InboxFile[]): Promise<void> {
    const present = new Set(files.map((f) => f.path));
    for (const item of await this.deps.repo.waitingIn(folderId)) {
      if (present.has(item.file_path) || item.status === 'filing') continue;
      if (!(await stat(item.file_path).catch(() => null))) await this.deps.repo.deleteItemIf(item.id, item.status);
    }
    for (const file of files)
      await this.arrived(folderId, file).catch((err: unknown) =>
        this.deps.log.warn({ err, file: file.path }, 'inbox: a file was not looked at'),
      );
  }

  private serial<T>(folderId: string, work: () => Promise<T>): Promise<T> {
    const before = this.chains.get(folderId) ?? Promise.resolve();
    const next = before.then(work, work);
    this.chains.set(
      folderId,
      next.catch(() => undefined),
    );
    return next;
  }

  /** A file complete in a folder (stable, or an upload finished): analysed and proposed, unless it already is as it stands. */
  arrived(folderId: string, file: InboxFile): Promise<InboxItemRow | undefined> {
    return this.serial(folderId, async () => {
      const folder = await this.deps.repo.getFolder(folderId);
      if (!folder) return undefined;
      const waiting = await this.deps.repo.waitingAt(file.path);
      if (waiting && waiting.status !== 'analysing' && waiting.size === file.size && waiting.mtime_ms === Math.floor(file.mtimeMs))
        return waiting;
      const item = await this.analyse(folder, file, waiting);
      this.publish('inbox_item_added', item);
      if (folder.auto_file === 1 && this.certain(item)) {
        await this.file(null, item, {}).catch((err: unknown) =>
          this.deps.log.warn({ err, file: file.path }, 'inbox: filing without review failed'),
        );
        return this.deps.repo.item(item.id);
      }
      return item;
    });
  }

  private certain(item: InboxItemRow): boolean {
    return item.status === 'review' && item.proposed_path !== null && item.score >= this.deps.autoThreshold();
  }

  // Analysis and proposal ---------------------------------------------------------------------------------------

  private async analyse(folder: InboxFolderRow, file: InboxFile, waiting: InboxItemRow | undefined): Promise<InboxItemRow> {
    const now = new Date().toISOString();
    const base = {
      folder_id: folder.id,
      library_id: folder.library_id,
      file_path: file.path,
      file_name: path.basename(file.path),
      size: file.size,
      mtime_ms: Math.floor(file.mtimeMs),
      updated_at: now,
    };
    const [outcome] = file.supported
      ? await this.deps
          .analyzer()
          .analyzeMany([file.path], { libraryRoot: folder.path, stats: [{ size: file.size, mtimeMs: file.mtimeMs }] })
      : [
          new Error(
            fill(sentence('{0} is not a format Colophon reads (CBZ, CBR, CB7, EPUB, PDF…)'), [path.extname(file.path) || file.path]),
          ),
        ];
    const id = waiting?.id ?? randomUUID();
    if (!outcome || outcome instanceof Error) {
      const problem = outcome?.message ?? 'not analysed';
      const row = {
        ...base,
        status: 'damaged',
        problem,
        reasons: JSON.stringify([fill(sentence('The file cannot be read: {0}'), [problem])]),
        hash: null,
        format: null,
        metadata: '{}',
        edited: 0,
        score: 0,
      };
      if (waiting) await this.deps.repo.updateItem(id, { ...row, series_id: null, series_name: null, proposed_path: null, score: 0 });
      else await this.deps.repo.insertItem({ id, ...row, created_at: now });
      return (await this.deps.repo.item(id))!;
    }
    const metadata = metadataOf(outcome);
    const library = await this.deps.libraries.get(folder.library_id);
    const proposal = await this.propose(
      metadata,
      JSON.parse(outcome.metadataJson) as { sources?: Record<string, MetadataSource> },
      file,
      await this.deps.repo.seriesOf(folder.library_id),
    );
    const row = {
      ...base,
      hash: outcome.hash,
      format: outcome.format,
      // Until its path and what stands in the way are known (settle): not yet in the review queue.
      status: 'analysing',
      series_id: proposal.seriesId,
      series_name: proposal.seriesName,
      number: proposal.number,
      volume: proposal.volume,
      year: proposal.year,
      title: proposal.title,
      score: proposal.score,
      reasons: JSON.stringify(proposal.reasons),
      metadata: JSON.stringify(metadata),
      edited: 0,
      problem: null,
      proposed_path: null,
      duplicate_of: null,
      moved_from: null,
    };
    if (waiting) await this.deps.repo.updateItem(id, row);
    else await this.deps.repo.insertItem({ id, ...row, created_at: now });
    const item = (await this.deps.repo.item(id))!;
    if (!library) return item;
    try {
      return await this.settle(folder, library, item);
    } catch (err) {
      // Never left `analysing`: a person sees what went wrong, and the next change of the file tries again.
      await this.deps.repo.updateItem(id, { status: 'failed', problem: err instanceof Error ? err.message : String(err) });
      return (await this.deps.repo.item(id)) ?? item;
    }
  }

  /** The series, number and title a file's analysis gives, matched against the library's series. */
  private async propose(
    metadata: Metadata,
    stored: { sources?: Record<string, MetadataSource> },
    file: InboxFile,
    series: readonly SeriesForMatch[],
  ): Promise<Proposal> {
    const reasons: string[] = [];
    const sources = stored.sources ?? {};
    const named = metadata.series?.trim() || null;
    const seriesName = named ?? titleFromFileName(path.basename(file.path));
    const seriesSource = sources.series ?? 'filename';
    reasons.push(
      named
        ? fill(SERIES_REASON[seriesSource], [seriesName])
        : fill(sentence('No series is named: the file name "{0}" is taken as the series'), [seriesName]),
    );
    if (metadata.number !== null) reasons.push(fill(NUMBER_REASON[sources.number ?? 'filename'], [metadata.number]));
    else reasons.push(sentence("No number was found: the template's optional parts that need it are left out"));

    const wanted = foldTitle(seriesName);
    const matches = series.filter((s) => foldTitle(s.name) === wanted || foldTitle(path.posix.basename(s.path)) === wanted);
    const fromMetadata = named !== null && seriesSource !== 'filename' && seriesSource !== 'folder';
    let score: number;
    let seriesId: string | null = null;
    let name = seriesName;
    if (matches.length === 1) {
      const match = matches[0]!;
      seriesId = match.id;
      name = match.name;
      score = fromMetadata ? 1 : 0.95;
      reasons.push(fill(sentence('It matches the series "{0}" already in the library (folder {1})'), [match.name, match.path]));
    } else if (matches.length > 1) {
      // As identification does: a runner-up as good as the best is no certainty; the first is proposed.
      const match = matches[0]!;
      seriesId = match.id;
      name = match.name;
      score = 0.7;
      reasons.push(
        fill(sentence('{0} series of the library are named "{1}": the first is proposed, check it'), [matches.length, match.name]),
      );
    } else {
      const online = await this.identified(seriesName, metadata.year, series);
      if (online) {
        seriesId = online.series.id;
        name = online.series.name;
        score = Math.min(online.score, 0.95);
        reasons.push(
          fill(sentence('Identified online as "{0}" ({1}): the series "{2}" of the library is that work'), [
            online.title,
            online.provider,
            online.series.name,
          ]),
        );
      } else {
        score = fromMetadata ? 0.5 : 0.4;
        reasons.push(fill(sentence('No series of the library is named "{0}": a new series is proposed'), [seriesName]));
      }
    }
    if (metadata.number === null && metadata.format !== 'epub' && metadata.format !== 'pdf') score = Math.max(0, score - 0.2);
    return {
      seriesId,
      seriesName: name,
      number: metadata.number,
      volume: metadata.volume,
      year: metadata.year,
      title: metadata.title,
      score,
      reasons,
    };
  }

  /**
   * A series of the library that identification found to be the work the title names: the best candidates (at the
   * review threshold or above) looked for among the series' online ids. A provider that cannot answer means no match.
   */
  private async identified(title: string, year: number | null, series: readonly SeriesForMatch[]) {
    if (!this.deps.identifyOnline) return null;
    const known = new Map<string, SeriesForMatch>();
    for (const s of series)
      for (const id of parseJsonColumn<Array<{ provider?: string; id?: string }>>(s.external_ids, []))
        if (id.provider && id.id) known.set(`${id.provider}:${id.id}`, s);
    if (known.size === 0) return null;
    const candidates = await this.deps.identifyOnline(title, year).catch(() => []);
    for (const c of candidates.filter((x) => x.score >= 0.7)) {
      const match = known.get(`${c.provider}:${c.external_id}`);
      if (match) return { series: match, title: c.title, provider: c.provider, score: c.score };
    }
    return null;
  }

  /**
   * The path the template gives (in the matched series' own folder), then what stands in the way: the same file
   * in a library (a duplicate), the same number in the series (an upgrade?), a file of that name (a clash).
   */
  private async settle(folder: InboxFolderRow, library: LibraryRow, item: InboxItemRow): Promise<InboxItemRow> {
    const reasons = (JSON.parse(item.reasons) as string[]).filter((r) => !this.isSettleReason(r));
    const patch: InboxItemPatch = { status: 'review', problem: null, duplicate_of: null, moved_from: null };
    let proposed = item.edited === 2 && item.proposed_path ? item.proposed_path : null;
    if (proposed === null) {
      try {
        proposed = await this.pathFor(folder, item);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        proposed = null;
        reasons.push(fill(sentence('The template cannot name this book: {0}'), [err.message]));
      }
    }
    patch.proposed_path = proposed;
    if (item.hash) {
      for (const other of await this.deps.repo.booksWithHash(item.hash)) {
        const present = other.deleted_at === null && (await stat(path.join(other.library_path, other.path)).catch(() => null)) !== null;
        if (present) {
          patch.status = 'duplicate';
          patch.duplicate_of = other.id;
          reasons.push(fill(sentence('The same file is already in a library: {0}'), [other.path]));
          break;
        }
        patch.moved_from ??= other.id;
      }
      if (patch.moved_from && patch.status !== 'duplicate')
        reasons.push(sentence("This file was in a library before: its readers' progress will follow it"));
    }
    if (patch.status === 'review' && item.series_id && item.number !== null) {
      const same = await this.deps.repo.bookNumbered(item.series_id, item.number, item.volume);
      if (same) {
        patch.status = 'duplicate';
        patch.duplicate_of = same.id;
        reasons.push(
          fill(sentence('The series already has number {0} ({1}): keep both, replace it (its progress is kept), or reject this one'), [
            item.number,
            same.path,
          ]),
        );
      }
    }
    if (patch.status === 'review' && proposed !== null && (await stat(path.join(library.path, proposed)).catch(() => null))) {
      patch.status = 'clash';
      reasons.push(fill(sentence('A file named {0} is already in the library: change the name'), [proposed]));
    }
    patch.moved_from = patch.status === 'duplicate' ? null : patch.moved_from;
    patch.reasons = JSON.stringify(reasons);
    patch.updated_at = new Date().toISOString();
    await this.deps.repo.updateWaiting(item.id, patch);
    const settled = await this.deps.repo.item(item.id);
    if (!settled) throw notFound('Inbox item');
    return settled;
  }

  private static readonly SETTLE_REASONS = [
    sentence('The template cannot name this book: {0}'),
    sentence('The same file is already in a library: {0}'),
    sentence("This file was in a library before: its readers' progress will follow it"),
    sentence('The series already has number {0} ({1}): keep both, replace it (its progress is kept), or reject this one'),
    sentence('A file named {0} is already in the library: change the name'),
    sentence('Filed without review: the match is certain (score {0}, threshold {1})'),
  ].map((t) => new RegExp(`^${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{\d\\\}/g, '.*')}$`, 's'));

  private isSettleReason(reason: string): boolean {
    return InboxService.SETTLE_REASONS.some((r) => r.test(reason));
  }

  /** The template's path; in a matched series, inside that series' folder (the folder is what makes a series). */
  private async pathFor(folder: InboxFolderRow, item: InboxItemRow): Promise<string> {
    const ext = path.extname(item.file_name).slice(1).toLowerCase();
    const rendered = renderTemplate(parseTemplate(folder.template), {
      series: item.series_name,
      number: item.number,
      volume: item.volume,
      year: item.year,
      title: item.title,
      publisher: (JSON.parse(item.metadata) as Partial<Metadata>).publisher ?? null,
      ext,
      original: titleFromFileName(item.file_name),
    });
    if (!item.series_id) return rendered;
    const series = (await this.deps.repo.seriesOf(item.library_id)).find((s) => s.id === item.series_id);
    // A loose file in the library's root is a series of its own: its books have no folder to join.
    if (!series || (path.posix.dirname(series.path) === '.' && path.posix.extname(series.path) !== '')) return rendered;
    return `${series.path}/${path.posix.basename(rendered)}`;
  }

  /** Proposed again (the template, the library or a person's change). */
  private async reconsider(folder: InboxFolderRow, item: InboxItemRow): Promise<InboxItemRow> {
    if (item.status === 'damaged' || item.status === 'filing') return item;
    const library = await this.deps.libraries.get(folder.library_id);
    if (!library) return item;
    if (item.library_id !== folder.library_id) await this.deps.repo.updateItem(item.id, { library_id: folder.library_id, series_id: null });
    return this.settle(folder, library, (await this.deps.repo.item(item.id))!);
  }

  // Review ------------------------------------------------------------------------------------------------------

  /** Items of libraries the caller may file into. */
  async items(caller: Caller, filter: { status?: string[]; folderId?: string }, offset: number, limit: number) {
    const scope = scopeFor(caller);
    const libraryIds = scope.all || scope.libraryIds === null ? null : [...scope.libraryIds];
    if (scope.all) return this.deps.repo.items({ libraryIds, ...filter }, offset, limit);
    if (scope.series === null) {
      const page = await this.deps.repo.items({ libraryIds, ...filter }, offset, limit);
      return { rows: await this.withoutHiddenBooks(caller, page.rows), total: page.total };
    }
    // Series rules: an item matched to a series the caller may not see is not theirs to see (queues are short).
    const { rows } = await this.deps.repo.items({ libraryIds, ...filter }, 0, 100_000);
    const visible = await this.visibleItems(caller, rows);
    return { rows: visible.slice(offset, offset + limit), total: visible.length };
  }

  private async visibleItems(caller: Caller, rows: readonly InboxItemRow[]): Promise<InboxItemRow[]> {
    const matched = rows.filter((r) => r.series_id !== null).map((r) => ({ library_id: r.library_id, series_id: r.series_id! }));
    const seen = new Set((await this.deps.access.visible(caller, matched)).map((s) => s.series_id));
    return this.withoutHiddenBooks(
      caller,
      rows.filter((r) => r.series_id === null || seen.has(r.series_id)),
    );
  }

  /**
   * The books an item names beside its own (the one it duplicates, the one it was): left out, with their reasons, when
   * the caller may not see them (another library, a hidden series).
   */
  private async withoutHiddenBooks(caller: Caller, rows: InboxItemRow[]): Promise<InboxItemRow[]> {
    const ids = [...new Set(rows.flatMap((r) => [r.duplicate_of, r.moved_from]).filter((id): id is string => id !== null))];
    if (ids.length === 0) return rows;
    const books = await this.deps.repo.booksByIds(ids);
    const visible = new Set((await this.deps.access.visible(caller, books)).map((b) => b.id));
    return rows.map((r) => {
      const hideDuplicate = r.duplicate_of !== null && !visible.has(r.duplicate_of);
      const hideMoved = r.moved_from !== null && !visible.has(r.moved_from);
      if (!hideDuplicate && !hideMoved) return r;
      const reasons = (JSON.parse(r.reasons) as string[]).filter(
        (reason) =>
          !(hideDuplicate && InboxService.SETTLE_REASONS[1]!.test(reason)) && !(hideMoved && InboxService.SETTLE_REASONS[2]!.test(reason)),
      );
      return {
        ...r,
        duplicate_of: hideDuplicate ? null : r.duplicate_of,
        moved_from: hideMoved ? null : r.moved_from,
        reasons: JSON.stringify(hideDuplicate ? [...reasons, phraseDuplicateElsewhere] : reasons),
      };
    });
  }

  async item(caller: Caller, id: string): Promise<InboxItemRow> {
    const item = await this.deps.repo.item(id);
    if (!item || !inScope(scopeFor(caller), item.library_id)) throw notFound('Inbox item');
    const [visible] = await this.visibleItems(caller, [item]);
    if (!visible) throw notFound('Inbox item');
    return visible;
  }

  private waitingOnly(item: InboxItemRow): void {
    if (item.status === 'filed') throw conflict('This item is filed already', { status: item.status, book_id: item.book_id });
    if (item.status === 'rejected') throw conflict('This item was rejected: its file is in the rejected folder', { status: item.status });
    if (item.status === 'filing') throw conflict('This item is being filed', { status: item.status });
    if (item.status === 'analysing') throw conflict('This item is still being analysed: try again in a moment', { status: item.status });
  }

  async change(caller: Caller, id: string, changes: ItemChanges): Promise<InboxItemRow> {
    const item = await this.item(caller, id);
    this.waitingOnly(item);
    if (item.status === 'damaged') throw conflict('A damaged file cannot be filed: reject it', { status: item.status });
    const folder = await this.deps.repo.getFolder(item.folder_id);
    const library = await this.deps.libraries.get(item.library_id);
    if (!folder || !library) throw notFound('Inbox item');
    const all = await this.deps.repo.seriesOf(item.library_id);
    const seen = new Set(
      (
        await this.deps.access.visible(
          caller,
          all.map((x) => ({ library_id: item.library_id, series_id: x.id })),
        )
      ).map((x) => x.series_id),
    );
    // Only the series the caller sees can be chosen, by id or by name.
    const series = all.filter((x) => seen.has(x.id));
    // A name a person gives stands (edited 2); otherwise the template names the changed proposal (edited 1).
    const patch: InboxItemPatch = {
      edited: changes.proposed_path !== undefined ? 2 : 1,
      proposed_path: null,
      updated_at: new Date().toISOString(),
    };
    if (changes.series_id !== undefined) {
      const chosen = changes.series_id === null ? null : series.find((s) => s.id === changes.series_id);
      if (chosen === undefined) throw badRequest("series_id names no series of the inbox folder's library", { field: 'series_id' });
      patch.series_id = chosen?.id ?? null;
      if (chosen) patch.series_name = chosen.name;
    }
    if (changes.series_name !== undefined) {
      const name = changes.series_name.trim();
      if (name === '') throw badRequest('series_name cannot be empty', { field: 'series_name' });
      patch.series_name = name;
      if (changes.series_id === undefined) {
        const wanted = foldTitle(name);
        patch.series_id = series.find((s) => foldTitle(s.name) === wanted)?.id ?? null;
      }
    }
    if (changes.number !== undefined) patch.number = changes.number;
    if (changes.volume !== undefined) patch.volume = changes.volume;
    if (changes.year !== undefined) patch.year = changes.year;
    if (changes.title !== undefined) patch.title = changes.title;
    if (changes.proposed_path !== undefined) patch.proposed_path = checkedRelativePath(changes.proposed_path, item.file_name);
    await this.deps.repo.updateWaiting(id, patch);
    const changed = await this.deps.repo.item(id);
    if (!changed) throw notFound('Inbox item');
    await this.settle(folder, library, changed);
    return this.item(caller, id);
  }

  async reject(caller: Caller, id: string): Promise<InboxItemRow> {
    const item = await this.item(caller, id);
    this.waitingOnly(item);
    const folder = await this.deps.repo.getFolder(item.folder_id);
    if (!folder) throw notFound('Inbox item');
    // Claimed as a filing is: a rejection and an acceptance at once cannot both move the file.
    if (!(await this.deps.repo.claim(item.id, item.status))) throw conflict('This item is being filed', { status: 'filing' });
    const target = await freeName(path.join(folder.path, REJECTED_FOLDER), item.file_name);
    try {
      await moveNoClobber(item.file_path, target, item.hash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        await this.deps.repo.deleteItem(item.id);
        throw notFound('Inbox item');
      }
      await this.deps.repo.updateItem(item.id, { status: item.status, updated_at: new Date().toISOString() });
      throw conflict('The file could not be moved to the rejected folder', { problem: fsProblem(err) });
    }
    await this.deps.repo.updateItem(id, {
      status: 'rejected',
      filed_path: path.relative(folder.path, target).split(path.sep).join('/'),
      decided_by: caller.user.id,
      updated_at: new Date().toISOString(),
    });
    const rejected = await this.deps.repo.item(id);
    if (!rejected) throw notFound('Inbox item');
    return rejected;
  }

  async accept(caller: Caller | null, id: string, options: { duplicate?: DuplicateChoice | undefined }): Promise<InboxItemRow> {
    const item = caller ? await this.item(caller, id) : await this.deps.repo.item(id);
    if (!item) throw notFound('Inbox item');
    return this.file(caller, item, options);
  }

  /** Moves an item's file into its library, then asks for a scan of its folder (the book appears when it ends). */
  private async file(
    caller: Caller | null,
    item: InboxItemRow,
    options: { duplicate?: DuplicateChoice | undefined },
  ): Promise<InboxItemRow> {
    this.waitingOnly(item);
    if (item.status === 'damaged')
      throw conflict('A damaged file cannot be filed: reject it', { status: item.status, problem: item.problem });
    if (item.status === 'clash')
      throw conflict('A file of the proposed name is already in the library: change the name first', { proposed_path: item.proposed_path });
    if (item.status === 'duplicate' && !options.duplicate)
      throw conflict('This file is a duplicate: accept it with duplicate "keep_both" or "replace", or reject it', {
        duplicate_of: item.duplicate_of,
      });
    if (!item.proposed_path)
      throw conflict('The template cannot name this book: give it a series or a name first', { field: 'proposed_path' });
    const library = await this.deps.libraries.get(item.library_id);
    if (!library) throw notFound('Inbox item');
    let relative = item.proposed_path;
    let replaced: { id: string; path: string } | null = null;
    if (item.status === 'duplicate' && options.duplicate === 'replace' && item.duplicate_of) {
      const old = (await this.deps.repo.bookIn(item.duplicate_of)) ?? null;
      const seen = old && caller ? (await this.deps.access.visible(caller, [old])).length > 0 : old !== null;
      if (!old || old.library_id !== item.library_id || !seen)
        throw conflict('Only a book of the same library can be replaced: keep both or reject', { duplicate_of: item.duplicate_of });
      replaced = { id: old.id, path: old.path };
      relative = old.path;
    }
    const target = path.join(library.path, relative);
    if (!withinAny(target, [library.path])) throw badRequest('proposed_path leaves the library', { field: 'proposed_path' });
    const claimed = await this.deps.repo.claim(item.id, item.status);
    if (!claimed) throw conflict('This item is being filed', { status: 'filing' });
    const back = (patch: InboxItemPatch) =>
      this.deps.repo.updateItem(item.id, { status: item.status, ...patch, updated_at: new Date().toISOString() });
    let aside: string | null = null;
    try {
      if (replaced) {
        // The new file must be there before the older one is moved aside; if the move in fails, the older goes back.
        await stat(item.file_path);
        const folder = await this.deps.repo.getFolder(item.folder_id);
        aside = await freeName(
          path.join(folder?.path ?? path.dirname(item.file_path), REJECTED_FOLDER),
          `replaced - ${path.basename(replaced.path)}`,
        );
        await moveNoClobber(target, aside, null);
      }
      await moveNoClobber(item.file_path, target, item.hash);
    } catch (err) {
      if (aside)
        await moveNoClobber(aside, target, null).catch((e: unknown) =>
          this.deps.log.warn({ err: e, aside }, 'inbox: the replaced file could not be put back'),
        );
      if (err instanceof NameTaken) {
        const reasons = [
          ...(JSON.parse(item.reasons) as string[]),
          fill(sentence('A file named {0} is already in the library: change the name'), [relative]),
        ];
        await back({ status: 'clash', reasons: JSON.stringify(reasons) });
        throw conflict('A file of the proposed name is already in the library: change the name first', { proposed_path: relative });
      }
      if (err instanceof ContentChanged) {
        await back({ problem: err.message });
        throw conflict('The copy in the library did not match the file analysed: nothing was filed; it will be looked at again', {
          problem: err.message,
        });
      }
      const problem = fsProblem(err);
      await back({ status: 'failed', problem });
      throw conflict("The file could not be moved into the library's folder: it stays in the inbox", { problem });
    }
    const reasons = JSON.parse(item.reasons) as string[];
    if (!caller)
      reasons.push(
        fill(sentence('Filed without review: the match is certain (score {0}, threshold {1})'), [
          item.score.toFixed(2),
          this.deps.autoThreshold().toFixed(2),
        ]),
      );
    await this.deps.repo.updateItem(item.id, {
      status: 'filed',
      filed_path: relative,
      problem: null,
      reasons: JSON.stringify(reasons),
      decided_by: caller?.user.id ?? null,
      book_id: null,
      updated_at: new Date().toISOString(),
    });
    await this.scanFor(item.library_id, relative);
    const filed = await this.deps.repo.item(item.id);
    if (!filed) throw notFound('Inbox item');
    return filed;
  }

  /**
   * A targeted scan of the folder a book was filed in. A scan of the library already running may have walked past
   * it (and its end comes before its task is marked done): asked again a moment later until one is queued.
   */
  private async scanFor(libraryId: string, relative: string, tries = 0): Promise<void> {
    const folder = path.posix.dirname(relative);
    const answer = await this.deps.scans.requestFolderScan(libraryId, [folder === '.' ? '' : folder], 'inbox');
    if (answer === 'queued' || tries >= 600 || !this.running) return;
    const timer = setTimeout(() => {
      void this.scanFor(libraryId, relative, tries + 1).catch((err: unknown) =>
        this.deps.log.warn({ err }, 'inbox: no scan for a filed book'),
      );
    }, 500);
    timer.unref();
  }

  /** After a scan of a library: its filed items become their books (progress carried over, then the event). */
  async afterScan(libraryId: string): Promise<void> {
    const waiting = await this.deps.repo.filedWithoutBook(libraryId);
    if (waiting.length === 0) return;
    let missing = false;
    for (const item of waiting) {
      const book = item.filed_path ? await this.deps.repo.bookAt(libraryId, item.filed_path) : undefined;
      if (!book) {
        missing = true;
        continue;
      }
      // Every instance hears a scan end (the event bridge): the one that attaches the book carries on.
      if (!(await this.deps.repo.attachBook(item.id, book.id))) continue;
      if (item.moved_from) await this.deps.carryProgress(item.moved_from, book.id);
      this.publish('inbox_item_filed', { ...item, status: 'filed' }, book);
    }
    // The scan that ended may have walked the folder before the file came (a scan was running): once more.
    const tries = this.rescans.get(libraryId) ?? 0;
    if (missing && tries < 3) {
      this.rescans.set(libraryId, tries + 1);
      for (const item of waiting) if (item.filed_path) await this.scanFor(libraryId, item.filed_path);
    } else this.rescans.delete(libraryId);
  }

  private publish(type: InboxEventName, item: InboxItemRow, book?: { id: string; series_id: string }): void {
    this.deps.bus.publish(type, {
      type,
      item_id: item.id,
      library_id: item.library_id,
      status: item.status,
      // The series decides who hears of it (a series-restricted filer does not hear of a hidden series' file).
      ...(book ? { book_id: book.id, series_id: book.series_id } : item.series_id ? { series_id: item.series_id } : {}),
      timestamp: new Date().toISOString(),
    });
  }
}

function metadataOf(a: CatalogAnalysis): Metadata {
  const authors = (JSON.parse(a.authorsJson) as Array<{ name?: string } | string>)
    .map((x) => (typeof x === 'string' ? x : (x.name ?? '')))
    .filter(Boolean);
  return {
    title: a.fields.title ?? null,
    series: a.fields.series ?? null,
    number: a.fields.number ?? null,
    volume: a.fields.volume ?? null,
    year: a.fields.year ?? null,
    publisher: a.fields.publisher ?? null,
    authors,
    page_count: a.pageCount,
    format: a.format,
  };
}

/** A name a person gave: relative, inside the library, with the file's own extension. */
function checkedRelativePath(input: string, fileName: string): string {
  const clean = input.replace(/\\/g, '/').replace(/^\/+/, '').trim();
  const parts = clean.split('/');
  if (clean === '' || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw badRequest('proposed_path must be a path inside the library, like Series/Series 01.cbz', { field: 'proposed_path' });
  if (path.posix.extname(clean).toLowerCase() !== path.extname(fileName).toLowerCase())
    throw badRequest(fill(sentence("proposed_path must keep the file's extension ({0})"), [path.extname(fileName)]), {
      field: 'proposed_path',
    });
  return clean;
}
