/**
 * Worker-thread side of the analysis pool. Each export is a task piscina can run by name. A hostile file can
 * only exhaust or hang this thread; the pool replaces it.
 */
import { analyzeFile } from './analyze.js';
import type { AnalyzeManyTask, AnalyzeTask, CoverTask, HashTask, PageTask, WorkerResult } from './analysis-protocol.js';
import { type CatalogAnalysis, toCatalogAnalysis } from './catalog-analysis.js';
import { asMediaError } from '../errors.js';
import { hashFile } from './hash.js';
import { withBook } from '../formats/open-book.js';
import { getCover, renderPage } from '../rendering/render-page.js';
import type { BookAnalysis, CoverRef, PageData } from '../types.js';

async function settle<T>(work: () => Promise<T>): Promise<WorkerResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    const error = asMediaError(err, 'corrupt', 'analysis');
    return { ok: false, kind: error.kind, message: error.message };
  }
}

export function analyze(task: AnalyzeTask): Promise<WorkerResult<BookAnalysis>> {
  return settle(() => analyzeFile(task.path, task.options));
}

/** Analysis for the scanner: the page list and metadata serialised here, in the worker (see CatalogAnalysis). */
export function analyzeForCatalog(task: AnalyzeTask): Promise<WorkerResult<CatalogAnalysis>> {
  return settle(async () => toCatalogAnalysis(await analyzeFile(task.path, task.options)));
}

/** The same for several books: each settles on its own, so one unreadable book does not fail the others. */
export async function analyzeManyForCatalog(task: AnalyzeManyTask): Promise<WorkerResult<WorkerResult<CatalogAnalysis>[]>> {
  const results: WorkerResult<CatalogAnalysis>[] = [];
  for (const [i, path] of task.paths.entries()) {
    const stat = task.stats?.[i];
    results.push(await analyzeForCatalog({ path, options: stat ? { ...task.options, stat } : task.options }));
  }
  return { ok: true, value: results };
}

export function page(task: PageTask): Promise<WorkerResult<PageData>> {
  return settle(() =>
    withBook(task.path, task.format, { limits: task.limits, knownPages: task.knownPages }, (reader) =>
      renderPage(reader, task.pageNumber, task.render),
    ),
  );
}

export function cover(task: CoverTask): Promise<WorkerResult<PageData & CoverRef>> {
  return settle(() => getCover(task.path, task.format, task));
}

export function hash(task: HashTask): Promise<WorkerResult<string>> {
  return settle(() => hashFile(task.path));
}

export default analyze;
