import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageBuffers } from '../../src/reading/pages/page-buffers.js';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz, makeImage } from '../media/fixtures.js';

// Page bytes read straight from a CBZ go out in reused buffers (PageBuffers): a buffer is lent again only once its
// answer has been handed to the operating system. Wrong reuse would send one page's bytes as another's.

describe('PageBuffers', () => {
  it('lends power-of-two buffers from 64 KiB, and lends a given-back buffer again', () => {
    const buffers = new PageBuffers();
    const small = buffers.take(10);
    expect(small.length).toBe(64 * 1024);
    const page = buffers.take(66_000);
    expect(page.length).toBe(128 * 1024);
    buffers.give(page);
    expect(buffers.kept).toBe(128 * 1024);
    expect(buffers.take(100_000)).toBe(page);
    expect(buffers.kept).toBe(0);
  });

  it('keeps a buffer given back twice only once, and never one it did not lend', () => {
    const buffers = new PageBuffers();
    const lent = buffers.take(70_000);
    buffers.give(lent);
    buffers.give(lent);
    buffers.give(Buffer.alloc(128 * 1024));
    expect(buffers.kept).toBe(128 * 1024);
    const first = buffers.take(70_000);
    const second = buffers.take(70_000);
    expect(first).toBe(lent);
    expect(second).not.toBe(lent);
  });

  it('gives a page above 16 MiB a buffer of its own, and keeps at most 32 MiB', () => {
    const buffers = new PageBuffers();
    const huge = buffers.take(16 * 1024 * 1024 + 1);
    expect(huge.length).toBe(16 * 1024 * 1024 + 1);
    buffers.give(huge);
    expect(buffers.kept).toBe(0);
    const big = [buffers.take(16 * 1024 * 1024), buffers.take(16 * 1024 * 1024), buffers.take(16 * 1024 * 1024)];
    for (const b of big) buffers.give(b);
    expect(buffers.kept).toBe(32 * 1024 * 1024);
  });
});

describe('Pages served over HTTP from reused buffers', () => {
  let t: CatalogTestApp;
  let origin: string;
  const expected = new Map<string, Buffer>();

  beforeAll(async () => {
    t = await createCatalogApp();
    const pages: Buffer[][] = [];
    await scannedLibrary(t, async (dir) => {
      for (let book = 0; book < 4; book++) {
        // Noisy pages of different sizes (some in the 64 KiB class, some in larger ones), stored as they are.
        const images = await Promise.all(
          [0, 1, 2].map((i) => makeImage({ width: 300 + 150 * i + 20 * book, height: 450 + 200 * i, format: 'jpeg', noise: true })),
        );
        pages.push(images);
        await makeCbz(path.join(dir, `Series ${book}`), `Series ${book} 001.cbz`, {
          pages: images.map((data, i) => ({ name: `${String(i + 1).padStart(3, '0')}.jpg`, data })),
          store: true,
        });
      }
      // Two books of one 12 MB page (a JPEG and bytes after its end, which decoders ignore): more than the
      // sockets hold, so an answer waits for its client to read, and both take buffers of one size.
      for (let book = 4; book < 6; book++) {
        const jpeg = await makeImage({ width: 300 + 20 * book, height: 450, format: 'jpeg' });
        const big = Buffer.concat([jpeg, randomBytes(12 * 1024 * 1024)]);
        pages.push([big]);
        await makeCbz(path.join(dir, `Big ${book}`), `Big ${book} 001.cbz`, { pages: [{ name: '001.jpg', data: big }], store: true });
      }
    });
    const books = await api<Paged<{ id: string }>>(t, 'GET', '/api/v1/books');
    for (const b of books.body.data) {
      // Which book is which: its first page's width (300 + 20 × its number).
      const list = await api<Array<{ width: number }>>(t, 'GET', `/api/v1/books/${b.id}/pages`);
      const index = (list.body[0]!.width - 300) / 20;
      pages[index]!.forEach((data, i) => expected.set(`/api/v1/books/${b.id}/pages/${i + 1}`, data));
    }
    expect(expected.size).toBe(14);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('sends every page its own bytes while many pages are in flight at once', async () => {
    const urls = [...expected].filter(([, data]) => data.length < 1024 * 1024).map(([url]) => url);
    const authorization = t.headers.authorization!;
    for (let round = 0; round < 5; round++) {
      const order = Array.from({ length: 60 }, (_, i) => urls[(i * 7 + round) % urls.length]!);
      const bodies = await Promise.all(
        order.map(async (url) => {
          const res = await fetch(`${origin}${url}`, { headers: { authorization } });
          expect(res.status).toBe(200);
          return { url, body: Buffer.from(await res.arrayBuffer()) };
        }),
      );
      for (const { url, body } of bodies) expect(body.equals(expected.get(url)!), url).toBe(true);
    }
  });

  it('keeps the buffer of a page until its answer is sent, however long its client takes to read it', async () => {
    const big = [...expected].filter(([, data]) => data.length > 1024 * 1024);
    expect(big).toHaveLength(2);
    const [[slowUrl, slowBytes], [otherUrl, otherBytes]] = big as [[string, Buffer], [string, Buffer]];
    // A client that asks for a big page and reads nothing for a while.
    const socket = net.connect(Number(new URL(origin).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(`GET ${slowUrl} HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.headers.authorization!}\r\nConnection: close\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Meanwhile another page of the same size is read and sent.
    const other = await fetch(`${origin}${otherUrl}`, { headers: { authorization: t.headers.authorization! } });
    expect(Buffer.from(await other.arrayBuffer()).equals(otherBytes)).toBe(true);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.resume();
    await new Promise((resolve) => socket.once('end', resolve));
    const answer = Buffer.concat(chunks);
    const bodyStart = answer.indexOf('\r\n\r\n') + 4;
    expect(answer.subarray(0, 15).toString()).toBe('HTTP/1.1 200 OK');
    expect(answer.subarray(bodyStart).equals(slowBytes)).toBe(true);
  });

  it('sends the right bytes after an answer was cut short mid-page', async () => {
    const [url, data] = [...expected].sort((a, b) => b[1].length - a[1].length)[0]!;
    const controller = new AbortController();
    const res = await fetch(`${origin}${url}`, { headers: { authorization: t.headers.authorization! }, signal: controller.signal });
    controller.abort();
    await res.arrayBuffer().catch(() => undefined);
    for (const [other, bytes] of expected) {
      const again = await fetch(`${origin}${other}`, { headers: { authorization: t.headers.authorization! } });
      expect(Buffer.from(await again.arrayBuffer()).equals(bytes), other).toBe(true);
    }
    const same = await fetch(`${origin}${url}`, { headers: { authorization: t.headers.authorization! } });
    expect(Buffer.from(await same.arrayBuffer()).equals(data)).toBe(true);
  });
});
