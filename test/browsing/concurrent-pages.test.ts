import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asMediaError, MediaError } from '../../src/media/errors.js';
import { ReaderPool } from '../../src/reading/pages/reader-pool.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';

const BOOKS = 12;
const PAGES = 3;

describe('more books read at once than the reader pool keeps open (open_books: 2)', () => {
  let t: CatalogTestApp;
  let books: Array<{ id: string; title: string }>;

  beforeAll(async () => {
    t = await createCatalogApp({ cache: { open_books: 2 } });
    await scannedLibrary(t, async (dir) => {
      for (let i = 1; i <= BOOKS; i++)
        await makeCbz(dir, `Crowd ${String(i).padStart(3, '0')}.cbz`, {
          pages: PAGES,
          pageSize: { width: 120, height: 180 },
          store: i % 2 === 0,
        });
    });
    books = (await api<Paged<{ id: string; title: string }>>(t, 'GET', '/api/v1/books?pageSize=100')).body.data;
    expect(books).toHaveLength(BOOKS);
  });
  afterAll(() => t.close());

  it('answers every page 200 with the same bytes as when read alone', async () => {
    const urls = books.flatMap((b) => Array.from({ length: PAGES }, (_, i) => `/api/v1/books/${b.id}/pages/${i + 1}`));
    const alone = new Map<string, string>();
    for (const url of urls) {
      const res = await t.app.inject({ method: 'GET', url, headers: t.headers });
      expect(res.statusCode, res.body).toBe(200);
      alone.set(url, res.rawPayload.toString('base64'));
    }
    // Four rounds of every page of every book at once: 144 requests over 12 books, 6 times the pool.
    const crowd = [...urls, ...urls, ...urls, ...urls];
    const answers = await Promise.all(crowd.map((url) => t.app.inject({ method: 'GET', url, headers: t.headers })));
    const failures = answers
      .map((r, i) => ({ url: crowd[i], status: r.statusCode, body: r.statusCode === 200 ? '' : r.body }))
      .filter((r) => r.status !== 200);
    expect(failures).toEqual([]);
    answers.forEach((r, i) => expect(r.rawPayload.toString('base64'), crowd[i]).toBe(alone.get(crowd[i]!)));
  });
});

describe('ReaderPool', () => {
  let dir: string;
  const file = (path: string) => ({ absolutePath: path, size: 1, mtimeMs: 1 });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'colophon-pool-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('never closes a reader in use: books past capacity stay open until their last reader leaves, then close', async () => {
    const pool = new ReaderPool({ maxOpen: 1, maxInUse: 8 });
    const paths = await Promise.all([1, 2, 3, 4].map((i) => makeCbz(dir, `b${i}.cbz`, { pages: 2, pageSize: { width: 40, height: 60 } })));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // Every book is opened and held while the others open; each then reads a page through its held reader.
    const reads = paths.map((p) =>
      pool.use(file(p), 'cbz', [], async (reader) => {
        await gate;
        return (await reader.readPage(2)).data.length;
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.openBooks).toBe(4);
    release();
    const sizes = await Promise.all(reads);
    expect(sizes.every((n) => n > 0)).toBe(true);
    expect(pool.openBooks).toBe(1);
    await pool.close();
  });

  it('at maxInUse, a request for another book waits for a release instead of failing', async () => {
    const pool = new ReaderPool({ maxOpen: 1, maxInUse: 2 });
    const paths = await Promise.all([5, 6, 7].map((i) => makeCbz(dir, `b${i}.cbz`, { pages: 1, pageSize: { width: 40, height: 60 } })));
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = paths.slice(0, 2).map((p, i) =>
      pool.use(file(p), 'cbz', [], async (reader) => {
        await gate;
        order.push(`held ${i}`);
        return (await reader.readPage(1)).data.length;
      }),
    );
    const third = pool.use(file(paths[2]!), 'cbz', [], async (reader) => {
      order.push('third');
      return (await reader.readPage(1)).data.length;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual([]);
    expect(pool.openBooks).toBe(2);
    release();
    expect(await Promise.all([...held, third])).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    expect(order.at(-1)).toBe('third');
    await pool.close();
  });
});

describe('a read failure of the server is not a damaged book', () => {
  it('a closed handle, exhausted descriptors or a busy file are "unavailable", not "corrupt"', () => {
    for (const code of ['EBADF', 'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN']) {
      const err = asMediaError(Object.assign(new Error('file closed'), { code }), 'corrupt', 'book.cbz: entry "p1.jpg" is damaged');
      expect(err, code).toBeInstanceOf(MediaError);
      expect(err.kind, code).toBe('unavailable');
    }
    expect(asMediaError(new Error('invalid distance too far back'), 'corrupt', 'x').kind).toBe('corrupt');
  });
});
