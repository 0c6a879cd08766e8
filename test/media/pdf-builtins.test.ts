import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/media/analysis/analyze.js';
import { withBook } from '../../src/media/formats/open-book.js';
import { renderPage } from '../../src/media/rendering/render-page.js';
import { makePdf } from './fixtures.js';

// Taken before anything in this file has loaded pdfjs (each test file runs in a process of its own).
const nativeStringify = JSON.stringify;
const nativeParse = JSON.parse;
const nativePush = Array.prototype.push;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-pdf-builtins-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reading a PDF leaves the thread its built-ins', () => {
  it('JSON.stringify, JSON.parse and Array.prototype.push are still the native ones after analysing and rendering a PDF', async () => {
    const path = await makePdf(dir, 'book.pdf', { pages: 2, text: 'Built-ins' });
    const analysis = await analyzeFile(path);
    expect(analysis.pages).toHaveLength(2);
    const page = await withBook(path, 'pdf', {}, (reader) => renderPage(reader, 1, { width: 200 }));
    expect(page.data.length).toBeGreaterThan(0);

    expect(JSON.stringify).toBe(nativeStringify);
    expect(JSON.parse).toBe(nativeParse);
    expect(Array.prototype.push).toBe(nativePush);
    expect(JSON.stringify({ pages: [1, 2] })).toBe('{"pages":[1,2]}');
  });
});
