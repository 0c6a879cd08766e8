import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsolatedRenderer } from '../../src/media/analysis/isolated-renderer.js';
import { makePdf, pdfFromObjects, pdfStream } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-isolated-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** One page drawing `segments` lines: pdf.js spends seconds to minutes of JavaScript on it (60,000: 87 s). */
async function heavyPdf(segments: number): Promise<string> {
  const ops = Array.from({ length: segments }, (_, i) => `${i % 600} 0 m ${600 - (i % 600)} 800 l`).join('\n');
  const path = join(dir, `heavy-${segments}.pdf`);
  await writeFile(
    path,
    pdfFromObjects([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 4 0 R >>',
      pdfStream('/Filter /FlateDecode', deflateSync(`${ops}\nS`)),
    ]),
  );
  return path;
}

describe('PDF pages made in worker threads (IsolatedRenderer)', () => {
  it('renders pages and covers like the in-process reader', async () => {
    const renderer = new IsolatedRenderer({ threads: 1 });
    try {
      const path = await makePdf(dir, 'plain.pdf', { pages: 2 });
      const page = await renderer.renderPage(path, 'pdf', 2, { width: 300, format: 'png' });
      expect(page.mediaType).toBe('image/png');
      expect((await sharp(page.data).metadata()).width).toBeLessThanOrEqual(300);
      const cover = await renderer.cover(path, 'pdf', { width: 200 });
      expect((await sharp(cover).metadata()).width).toBeLessThanOrEqual(200);
    } finally {
      await renderer.close();
    }
  });

  it('a page that would take pdf.js minutes is cut at the time limit while this thread keeps running', async () => {
    const renderer = new IsolatedRenderer({ threads: 1, timeoutMs: 1_000 });
    const path = await heavyPdf(60_000);
    // The event loop of this thread (the server's) must keep turning meanwhile.
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    try {
      await expect(renderer.renderPage(path, 'pdf', 1, { width: 600 })).rejects.toMatchObject({ name: 'MediaError', kind: 'timeout' });
    } finally {
      clearInterval(ticker);
      await renderer.close();
    }
    expect(longestGap).toBeLessThan(500);
  }, 30_000);
});
