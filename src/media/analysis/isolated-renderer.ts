import { availableParallelism } from 'node:os';
import { AnalysisPool } from './analysis-pool.js';
import type { BookFormat, PageData } from '../types.js';
import type { PageRequestOptions } from '../rendering/page-sizes.js';

/**
 * Time one PDF or CBR page or cover may take. A reader waits for it; the scanner's per-file limit (minutes) is
 * for whole books.
 */
const RENDER_TIMEOUT_MS = 30_000;

/**
 * PDF and CBR pages and covers made in worker threads. pdf.js and the unrar WASM module run JavaScript for as
 * long as a page takes (a crafted PDF page of 60,000 path segments: 87 s), which in the server process held every
 * other request that long; in a worker the time limit stops it and the server goes on answering. CBZ and EPUB
 * pages are cut out of their archive, cheaply, and stay in process (ReaderPool keeps those books open).
 * The threads start on first use and leave when idle.
 */
export class IsolatedRenderer {
  private pool: AnalysisPool | undefined;

  constructor(private readonly options: { threads?: number; timeoutMs?: number } = {}) {}

  /** Whether pages and covers of this format are made here rather than in process. */
  handles(format: string | null | undefined): format is 'pdf' | 'cbr' {
    return format === 'pdf' || format === 'cbr';
  }

  renderPage(path: string, format: BookFormat, n: number, options: PageRequestOptions & { knownPages?: string[] }): Promise<PageData> {
    return this.get().renderPage(path, format, n, options);
  }

  async cover(path: string, format: BookFormat, size: { width?: number; height?: number }): Promise<Buffer> {
    return (await this.get().cover(path, format, size)).data;
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }

  private get(): AnalysisPool {
    this.pool ??= new AnalysisPool({
      threads: this.options.threads ?? Math.min(2, availableParallelism()),
      timeoutMs: this.options.timeoutMs ?? RENDER_TIMEOUT_MS,
    });
    return this.pool;
  }
}
