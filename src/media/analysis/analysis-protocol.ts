import type { AnalyzeOptions, FileStat } from './analyze.js';
import type { MediaErrorKind } from '../errors.js';
import type { MediaLimits } from '../limits.js';
import type { RenderPageOptions } from '../rendering/render-page.js';
import type { BookFormat } from '../types.js';

/** Messages between the analysis pool and its workers; everything here survives structured cloning. */
export interface AnalyzeTask {
  path: string;
  options: Omit<AnalyzeOptions, 'signal'>;
}

/** Several books analysed one after the other in one task (see AnalysisPool.analyzeManyForCatalog). */
export interface AnalyzeManyTask {
  paths: string[];
  /** What the caller's walk saw of each path, in the same order (see AnalyzeOptions.stat). */
  stats?: FileStat[];
  options: Omit<AnalyzeOptions, 'signal' | 'stat'>;
}

export interface PageTask {
  path: string;
  format?: BookFormat;
  pageNumber: number;
  knownPages?: string[];
  limits?: Partial<MediaLimits>;
  render: Omit<RenderPageOptions, 'signal'>;
}

export interface CoverTask {
  path: string;
  format?: BookFormat;
  limits?: Partial<MediaLimits>;
  width?: number;
  height?: number;
}

export interface HashTask {
  path: string;
}

/** Errors cross the thread boundary as data: a thrown MediaError would arrive without its kind. */
export type WorkerResult<T> = { ok: true; value: T } | { ok: false; kind: MediaErrorKind; message: string };
