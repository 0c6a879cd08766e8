import type { Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseJsonColumn } from '../../db/json-column.js';
import { badRequest } from '../../http/errors.js';
import { fileNameFields, folderFields } from '../../media/index.js';
import { nameKindOf } from '../../media/metadata/metadata.js';
import type { DecisionDetail } from '../scanning/scanner/decisions.js';
import { excludeRules, pathRule, type PathRule } from '../scanning/scanner/exclude.js';
import { isLooseFile } from '../scanning/scanner/series-rules.js';
import { seriesNameSource } from '../../catalog/index.js';
import { under } from '../scanning/scanner/targeted-walk.js';
import { type AccessService, type Caller, withLibraryRelativePaths } from '../../identity/index.js';
import type { LibraryService } from '../service.js';
import type { WatchService } from '../watching/service.js';
import type { ExplainBookRow, ExplainRepository } from './repository.js';
import type { Explanation, FieldExplanation, SeriesExplanation } from './schemas.js';

const SOURCE_NAMES: Record<string, string> = {
  comicinfo: 'ComicInfo.xml',
  opf: 'the EPUB’s OPF',
  pdf: 'the PDF’s properties',
  filename: 'the file name',
  folder: 'the folder’s name',
  file: 'the file itself',
};
const sourceName = (source: string | null | undefined) => (source ? (SOURCE_NAMES[source] ?? source) : 'nowhere');

const REASONS: Record<DecisionDetail['reason'], string> = {
  new_file: 'it was new',
  size_changed: 'its size had changed',
  mtime_changed: 'its modification time had changed',
  deep_scan: 'a deep scan analyses every file',
  retry_after_error: 'its last analysis had failed',
  file_back: 'its file was back',
  same_hash: 'its content (SHA-256) matched',
  gone: 'its file was not found by a scan that saw the library folder',
};

function ruleSentence(rule: PathRule): string {
  switch (rule.rule) {
    case 'hidden':
      return `Not part of the library: “${rule.part}” is hidden (names starting with “.” and __MACOSX are skipped).`;
    case 'excluded':
      return `Not part of the library: excluded by \`${rule.glob}\` (the library’s scanning_config.exclude).`;
    case 'unsupported_extension':
      return `Not part of the library: ${rule.extension || 'a name without extension'} is not a book file (books are .cbz .zip .cbr .rar .epub .pdf; .cb7 .7z are recorded as unsupported).`;
  }
}

/**
 * Explains, in data and in sentences, why a file is (or is not) a book of its library and why the book looks
 * as it does: the library's rules (hidden, exclude glob, extension), what the last scan decided and why
 * (libraries/scanning/scanner/decisions.ts), where the title, number and series came from with each source's value, the series
 * rule, the same content elsewhere, and whether watching is still waiting for the file.
 */
export class ExplainService {
  constructor(
    private readonly deps: {
      repo: ExplainRepository;
      access: AccessService;
      libraries: LibraryService;
      watching: WatchService;
    },
  ) {}

  async book(caller: Caller, bookId: string): Promise<Explanation> {
    const visible = await this.deps.access.book(caller, bookId);
    const library = await this.deps.libraries.getFor(caller, visible.library_id);
    const book = (await this.deps.repo.book(bookId))!;
    return this.explain(caller, library, book.path, book);
  }

  async path(caller: Caller, libraryId: string, requested: string): Promise<Explanation> {
    const library = await this.deps.libraries.getFor(caller, libraryId);
    const rel = relativePath(library.path, requested);
    return this.explain(caller, library, rel, await this.deps.repo.bookAt(library.id, rel));
  }

  private async explain(
    caller: Caller,
    library: { id: string; path: string; scanning_config: { exclude: string[] } },
    rel: string,
    book: ExplainBookRow | undefined,
  ): Promise<Explanation> {
    const sentences: string[] = [];
    const rule = pathRule(rel, excludeRules(library.scanning_config.exclude));
    const found = await locate(library.path, rel);
    const info = found === 'outside' ? null : found;
    const decisionRow = await this.deps.repo.decision(library.id, rel);
    const decision = decisionRow ? { ...decisionRow, detail: parseJsonColumn<DecisionDetail | null>(decisionRow.detail, null) } : null;
    const history = (await this.deps.repo.history(library.id, rel, book?.id ?? null)).map((h) => ({
      path: h.path,
      outcome: h.outcome,
      reason: parseJsonColumn<DecisionDetail | null>(h.detail, null)?.reason ?? null,
      decided_at: h.decided_at,
    }));
    const watch = this.deps.watching.get(library.id);
    const beingWritten = watch?.being_written.includes(rel) ?? false;
    const pending = watch?.pending_folders.some((folder) => under(folder, rel)) ?? false;

    let status: Explanation['status'];
    if (found === 'outside') {
      status = 'outside';
      sentences.push(
        'This path goes through a symbolic link that leads out of the library folder, or to a folder: scans and watching do not follow such links, so it is not part of the library.',
      );
    } else if (info?.isDirectory()) {
      status = 'folder';
      sentences.push('This is a folder: each folder with book files is a series, keyed by its path.');
      if (rule) sentences.push(ruleSentence(rule));
    } else if (rule && !(book && book.deleted_at === null)) {
      status = rule.rule === 'unsupported_extension' ? 'unsupported' : rule.rule;
      sentences.push(ruleSentence(rule));
    } else if (book && book.deleted_at === null) {
      status = 'book';
    } else if (book) {
      status = 'deleted';
      sentences.push(
        info
          ? 'The book was soft-deleted by the last scan that saw its file gone; the file is there now, and the next scan of its folder restores it with its progress.'
          : 'The book is soft-deleted: its file was not found by a scan that saw the library folder. Its progress is kept, and it comes back (same id) if the file returns, here or anywhere in the library with the same content.',
      );
    } else if (info) {
      status = beingWritten || pending ? 'waiting' : 'not_scanned';
      sentences.push(
        beingWritten
          ? 'The file is still being written (its size or time changed at the last look): it is scanned once it stays the same.'
          : pending
            ? 'Its folder changed and is waiting for the quiet period before a scan.'
            : 'The file is there but no scan has recorded it yet: scan the library (or wait for watching) to add it.',
      );
    } else {
      status = 'missing';
      sentences.push('No such file in the library folder, and no book at this path.');
    }

    const lastDecision = decision?.detail
      ? {
          outcome: decision.outcome,
          reason: decision.detail.reason,
          decided_at: decision.decided_at,
          mode: decision.detail.mode,
          targeted: decision.detail.targeted,
          moved_from: decision.detail.moved_from ?? null,
          moved_to: decision.detail.moved_to ?? null,
          error: decision.detail.error ?? null,
          previous: decision.detail.previous ?? null,
        }
      : null;
    if (lastDecision) sentences.push(decisionSentence(lastDecision));

    let fields: FieldExplanation[] = [];
    let series: SeriesExplanation | null = null;
    let duplicates: { book_id: string; path: string; library_id: string }[] = [];
    if (book) {
      if (
        info &&
        book.deleted_at === null &&
        info.size === book.size &&
        Math.floor(info.mtimeMs) === book.mtime_ms &&
        lastDecision?.outcome !== 'failed'
      )
        sentences.push(
          'Unchanged since: its size and modification time match the catalog, so scans skip it (a deep scan analyses it again).',
        );
      if (book.analysis_error) sentences.push(`The file could not be read: ${book.analysis_error}.`);
      fields = this.fields(book, library.path);
      for (const f of fields) sentences.push(fieldSentence(f));
      series = await this.series(book);
      if (series) sentences.push(series.sentence);
      if (book.hash) {
        const same = await this.deps.access.visible(caller, await this.deps.repo.sameHash(book.hash, book.id));
        duplicates = same.map((d) => ({ book_id: d.id, path: d.path, library_id: d.library_id }));
        if (duplicates.length > 0)
          sentences.push(`Duplicate: the same content (SHA-256) is also ${duplicates.map((d) => `“${d.path}”`).join(', ')}.`);
      }
    }

    const explanation: Explanation = {
      library_id: library.id,
      path: rel,
      book_id: book?.id ?? null,
      status,
      sentences,
      rule,
      file: info
        ? { exists: true, is_folder: info.isDirectory(), size: info.size, mtime_ms: Math.floor(info.mtimeMs) }
        : { exists: false, is_folder: false, size: null, mtime_ms: null },
      watching: { state: watch?.state ?? null, pending, being_written: beingWritten },
      last_decision: lastDecision,
      fields,
      series,
      duplicates,
      history,
    };
    // Errors name files by their absolute path (the analysis, the scan's decision); below admin, relative to the library.
    return caller.isAdmin ? explanation : withLibraryRelativePaths(explanation, library.path);
  }

  /** Title, number and series: the value kept and where from, beside what the file name and folder say. */
  private fields(book: ExplainBookRow, root: string): FieldExplanation[] {
    const metadata = parseJsonColumn<Record<string, unknown> & { sources?: Record<string, string> }>(book.metadata, {});
    const kind = nameKindOf(undefined, book.path);
    const fromName = fileNameFields(book.path, kind) as Record<string, unknown>;
    const fromFolder = folderFields(path.join(root, book.path), root) as Record<string, unknown>;
    const out: FieldExplanation[] = [];
    for (const field of ['title', 'number', 'series'] as const) {
      const value = field === 'title' ? book.title : metadata[field];
      const source = metadata.sources?.[field] ?? (field === 'title' ? 'filename' : null);
      const candidates: { source: string; value: string }[] = [];
      if (value !== undefined && value !== null && source) candidates.push({ source, value: String(value) });
      for (const [s, fields] of [
        ['filename', fromName],
        ['folder', fromFolder],
      ] as const) {
        const v = fields[field];
        if (v !== undefined && v !== null && s !== source) candidates.push({ source: s, value: String(v) });
      }
      out.push({ field, value: value === undefined || value === null ? null : String(value), source: source ?? null, candidates });
    }
    return out;
  }

  private async series(book: ExplainBookRow): Promise<SeriesExplanation | null> {
    const row = await this.deps.repo.series(book.series_id);
    if (!row) return null;
    const books = await this.deps.repo.seriesBooks(row.id);
    const votes = new Map<string, { value: string; source: string; count: number }>();
    for (const b of books) {
      const m = parseJsonColumn<{ series?: unknown; sources?: Record<string, string> }>(b.metadata, {});
      const value = typeof m.series === 'string' ? m.series.trim() : '';
      const source = m.sources?.series;
      if (!value || !source || source === 'folder') continue;
      const key = `${source}\0${value}`;
      const vote = votes.get(key) ?? { value, source, count: 0 };
      vote.count++;
      votes.set(key, vote);
    }
    const source = seriesNameSource(row.metadata) ?? 'folder';
    const tally = [...votes.values()].sort((a, b) => b.count - a.count);
    const agreeing = tally
      .filter((v) => v.value.toLocaleLowerCase('en') === row.name.toLocaleLowerCase('en'))
      .reduce((n, v) => n + v.count, 0);
    const loose = isLooseFile(book.path);
    let rule: SeriesExplanation['rule'];
    let sentence: string;
    if (source === 'folder') {
      rule = 'folder';
      sentence = loose
        ? `Series “${row.name}”: a file in the library root is a series by itself, named after the file.`
        : `Series “${row.name}”: named after its folder, since no book states a series name and the file names do not agree (at least two books and more than half).`;
    } else if (source === 'filename') {
      rule = 'filename_agreement';
      sentence = `Series “${row.name}”: named by file names, ${agreeing} of ${books.length} books parse to it (no book states a series name).`;
    } else {
      rule = 'stated';
      sentence = `Series “${row.name}”: named by consensus of ${agreeing} of ${books.length} books stating it (most from ${sourceName(source)}); a stated name wins over file names.`;
    }
    return { id: row.id, name: row.name, path: row.path, source, rule, books: books.length, votes: tally, sentence };
  }
}

/** A path relative to the library folder: given relative, or absolute inside it. `..` is refused. */
export function relativePath(root: string, requested: string): string {
  const given = requested.trim();
  const rel = path.isAbsolute(given) ? path.relative(root, given) : given;
  const parts = rel.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.includes('..') || (path.isAbsolute(given) && rel.startsWith('..')))
    throw badRequest('path must lie inside the library folder', { field: 'path', value: requested });
  return parts.join('/');
}

function decisionSentence(d: {
  outcome: string;
  reason: DecisionDetail['reason'];
  decided_at: string;
  targeted: boolean;
  moved_from: string | null;
  moved_to: string | null;
  error: string | null;
}): string {
  const when = `${d.targeted ? 'a scan of its folder (watching)' : 'a scan'} on ${d.decided_at}`;
  switch (d.outcome) {
    case 'added':
      return `Added by ${when}: ${REASONS[d.reason]}.`;
    case 'updated':
      return `Analysed again by ${when}: ${REASONS[d.reason]}.`;
    case 'restored':
      return `Restored by ${when}: ${REASONS[d.reason]}.`;
    case 'moved':
      return `Moved from “${d.moved_from}” by ${when}: ${REASONS[d.reason]}, so it kept its id, metadata and reading progress.`;
    case 'moved_away':
      return `Moved to “${d.moved_to}” by ${when}: ${REASONS[d.reason]}.`;
    case 'failed':
      return `Analysis failed in ${when}: ${d.error ?? 'unknown error'}. The book is kept with this error, and analysed again when the file changes.`;
    case 'deleted':
      return `Soft-deleted by ${when}: ${REASONS[d.reason]}.`;
    default:
      return `${d.outcome} by ${when}.`;
  }
}

function fieldSentence(f: FieldExplanation): string {
  const others = f.candidates.filter((c) => c.source !== f.source);
  const besides = others.length > 0 ? ` (${others.map((c) => `${sourceName(c.source)} says “${c.value}”`).join('; ')})` : '';
  if (f.value === null) return `No ${f.field}: no source gives one${besides}.`;
  return `${f.field[0]!.toUpperCase()}${f.field.slice(1)} “${f.value}” from ${sourceName(f.source)}${besides}.`;
}

/**
 * What is at `rel` as the scans see it: its stat, null when nothing is there, or `outside` when the way there goes
 * through a symbolic link the scans do not follow — a link to a folder, or to a file whose real path is outside the
 * library's real folder (walk.ts). Links are judged before anything of their target is read.
 */
async function locate(root: string, rel: string): Promise<Stats | null | 'outside'> {
  const parts = rel.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = path.join(at, part);
    const own = await lstat(at).catch(() => null);
    if (!own) return null;
    if (!own.isSymbolicLink()) continue;
    if (i < parts.length - 1) return 'outside';
    const [real, realRoot] = await Promise.all([realpath(at).catch(() => null), realpath(root).catch(() => null)]);
    if (real === null) return null; // a dangling link: as if nothing were there
    const relative = realRoot === null ? '..' : path.relative(realRoot, real);
    if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return 'outside';
    const target = await stat(real).catch(() => null);
    return target?.isDirectory() ? 'outside' : target;
  }
  return stat(at).catch(() => null);
}
