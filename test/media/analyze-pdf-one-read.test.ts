import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyzeFile } from '../../src/media/analysis/analyze.js';
import { makeCbz, makePdf } from './fixtures.js';

// Every whole-file read of the process goes through this spy; the analysis's own read (open + read into its
// pooled buffer) does not, so any call naming the PDF is a second read of it.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, readFile: vi.fn(actual.readFile) };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-pdf-one-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('analysis of a small PDF', () => {
  it('parses the bytes it read to hash them: the file is read once, and the result is the same', async () => {
    const pdf = await makePdf(dir, 'Essays/Essays 01.pdf', {
      pages: 3,
      pageSize: { width: 500, height: 700 },
      info: { Title: 'On Reading', Author: 'A. Writer' },
    });
    const cbz = await makeCbz(dir, 'Saga/Saga 001.cbz', { pages: 2 });
    const sha256 = createHash('sha256')
      .update(await readFile(pdf))
      .digest('hex');
    const readFileSpy = vi.mocked(fsPromises.readFile);
    readFileSpy.mockClear();

    const first = await analyzeFile(pdf);
    // The pooled buffer the PDF was read into is handed to the next book: the PDF's analysis must not depend on it.
    await analyzeFile(cbz);
    const again = await analyzeFile(pdf);

    const pdfReads = readFileSpy.mock.calls.filter(([path]) => path === pdf);
    expect(pdfReads).toHaveLength(0);
    expect(first).toMatchObject({ format: 'pdf', hash: sha256 });
    expect(first.pages).toHaveLength(3);
    expect(first.pages[0]).toMatchObject({ number: 1, width: 1143, height: 1600 });
    expect(first.metadata).toMatchObject({ title: 'On Reading' });
    expect(again).toEqual(first);
  });
});
