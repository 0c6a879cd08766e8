/**
 * Reader benchmark (not a test; `npx tsx web/e2e/bench/reader-bench.ts`): starts the built server on a temp
 * data_dir with a generated library (BENCH_BOOKS books of 12 pages, default 2000, plus a 200-page webtoon
 * chapter), then in Debian's Chromium measures
 *  - "Read" clicked on the book page → first page painted (the frame after the image is in the document),
 *  - a key press → the next, preloaded page painted (11 turns in each of BENCH_TURN_BOOKS books, default 4),
 *  - webtoon: cumulative layout shift while scrolling a 200-page chapter, and scroll-position jumps.
 * Prints p50/p95 in milliseconds.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { makeCbz, makeImage } from '../../../test/media/fixtures.js';

const root = path.resolve(import.meta.dirname, '../../..');
const BOOKS = Number(process.env.BENCH_BOOKS ?? 2000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'correct horse battery' };

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};
const report = (label: string, values: number[]) =>
  console.warn(
    `${label}: p50 ${quantile(values, 0.5).toFixed(1)} ms, p95 ${quantile(values, 0.95).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms (n=${values.length})`,
  );

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'colophon-reader-bench-'));
  const library = path.join(work, 'library');
  console.warn(`generating ${BOOKS} books…`);
  // Twelve scan-like pages made once (noise gives them a realistic size) and shared by every book: each book is
  // still its own file with its own hash, so nothing of one is cached for another.
  const pageBytes = await Promise.all(
    Array.from({ length: 12 }, (_, p) =>
      makeImage({ width: 1000, height: 1500, format: 'jpeg', color: `hsl(${p * 29}, 50%, 50%)`, noise: true }),
    ),
  );
  for (let i = 1; i <= BOOKS; i++) {
    const series = `Series ${String(Math.ceil(i / 10)).padStart(4, '0')}`;
    const dir = path.join(library, series);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    await makeCbz(dir, `${series} ${String(i).padStart(5, '0')}.cbz`, {
      pages: pageBytes.map((data, p) => ({ name: `p${String(p + 1).padStart(3, '0')}.jpg`, data })),
      comicInfo: { Series: series, Number: ((i - 1) % 10) + 1, Title: `Book ${i}` },
    });
  }
  await makeCbz(path.join(library, 'Long Webtoon'), 'Long Webtoon 001.cbz', {
    pages: Array.from({ length: 200 }, (_, p) => ({
      name: `w${String(p + 1).padStart(3, '0')}.jpg`,
      width: 800,
      height: 1200 + (p % 5) * 300,
      color: `hsl(${(p * 13) % 360}, 50%, 50%)`,
    })),
    comicInfo: { Series: 'Long Webtoon', Number: 1, Title: 'Webtoon chapter' },
  });

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [path.join(root, 'dist/cli.js'), 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      COLOPHON_DATA_DIR: path.join(work, 'data'),
      COLOPHON_SERVER__HOST: '127.0.0.1',
      COLOPHON_SERVER__PORT: String(port),
      COLOPHON_LOGGING__LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
  try {
    for (let i = 0; i < 150; i++) {
      if (
        await fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const json = async (method: string, p: string, token?: string, body?: unknown) => {
      const r = await fetch(`${url}${p}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return r.json() as Promise<Record<string, unknown>>;
    };
    await json('POST', '/api/v1/setup/initialize', undefined, ADMIN);
    const login = await json('POST', '/api/v1/auth/login', undefined, { username: ADMIN.username, password: ADMIN.password });
    const token = login.access_token as string;
    const lib = await json('POST', '/api/v1/libraries', token, { name: 'Bench', path: library });
    await json('POST', `/api/v1/libraries/${lib.id as string}/scan`, token);
    console.warn('scanning…');
    let books: Array<{ id: string; title: string; page_count: number }> = [];
    for (;;) {
      const status = await json('GET', `/api/v1/libraries/${lib.id as string}/scan-status`, token);
      if (status.state === 'completed' || status.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    books = ((await json('GET', '/api/v1/books?pageSize=500', token)).data as typeof books).filter((b) => b.page_count > 0);
    console.warn(`${books.length} readable books listed (first page of the list)`);
    await json('PUT', '/api/v1/user/preferences/reader_settings', token, { value: { all_series: { desktop: { spread: 'single' } } } });

    const browser = await chromium.launch({
      executablePath: ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p)),
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 } });
    await context.addInitScript(
      (value) => localStorage.setItem('colophon.session', value),
      JSON.stringify({ token, expiresAt: Date.now() + 3600_000, username: ADMIN.username }),
    );
    const page = await context.newPage();

    // Read clicked → first page painted, on books never opened before (their pages are not cached anywhere).
    const open: number[] = [];
    const imageStart: number[] = [];
    const imageDuration: number[] = [];
    const paged = books.filter((b) => b.page_count === 12);
    for (let i = 0; i < RUNS && i < paged.length; i++) {
      await page.goto(`/books/${paged[i]!.id}`);
      const read = page.getByRole('link', { name: /^(Read|Continue reading)$/ });
      await read.waitFor();
      await page.evaluate(() => {
        const w = window as unknown as { __t0?: number; __t1?: number };
        w.__t0 = 0;
        w.__t1 = 0;
        document.addEventListener('click', () => (w.__t0 = performance.now()), { capture: true, once: true });
        const observer = new MutationObserver(() => {
          if (!w.__t1 && document.querySelector('.reader-view img')) {
            observer.disconnect();
            requestAnimationFrame(() => (w.__t1 = performance.now()));
          }
        });
        observer.observe(document.body, { childList: true, subtree: true });
      });
      await read.click();
      await page.waitForFunction(() => (window as unknown as { __t1?: number }).__t1);
      open.push(
        await page.evaluate(
          () => (window as unknown as { __t1: number; __t0: number }).__t1 - (window as unknown as { __t0: number }).__t0,
        ),
      );
      // Where the time went: the first page image's request, from the click.
      const image = await page.evaluate(() => {
        const t0 = (window as unknown as { __t0: number }).__t0;
        const entry = performance.getEntriesByType('resource').filter((e) => /\/pages\/\d+(\?|$)/.test(e.name) && e.startTime >= t0)[0] as
          PerformanceResourceTiming | undefined;
        return entry ? { start: entry.startTime - t0, duration: entry.responseEnd - entry.startTime } : null;
      });
      if (image) {
        imageStart.push(image.start);
        imageDuration.push(image.duration);
      }
    }
    report('Read clicked → first page painted', open);
    report('  of which: click → first page image requested', imageStart);
    report('  of which: first page image request (server resize, cold)', imageDuration);

    // Key press → preloaded page painted.
    const turns: number[] = [];
    const turnWork: number[] = [];
    for (const book of paged.slice(0, Number(process.env.BENCH_TURN_BOOKS ?? 4))) {
      await page.goto(`/books/${book.id}/read?page=1`);
      await page.locator('.reader-view img').waitFor();
      for (let p = 1; p < 12; p++) {
        await page.waitForTimeout(400); // lets the queue decode the next pages
        const t = await measureTurn(page);
        turns.push(t.painted);
        turnWork.push(t.work);
      }
    }
    report('Key press → preloaded page painted', turns);
    report("  of which: key press → new page in the document (the turn's own work)", turnWork);

    // Webtoon: layout shift and scroll jumps through 200 pages.
    await json('PUT', '/api/v1/user/preferences/reader_settings', token, { value: { all_series: { desktop: { mode: 'webtoon' } } } });
    const webtoon = ((await json('GET', '/api/v1/books?pageSize=5&sort=page_count,desc', token)).data as typeof books)[0]!;
    await page.goto(`/books/${webtoon.id}/read?page=1`);
    await page.locator('.reader-strip img').first().waitFor();
    const result = await page.evaluate(async () => {
      let cls = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>)
          if (!entry.hadRecentInput) cls += entry.value;
      }).observe({ type: 'layout-shift', buffered: false });
      const stage = document.querySelector('.reader-stage') as HTMLElement;
      let jumps = 0;
      for (let y = 0; y < stage.scrollHeight - stage.clientHeight; y += 400) {
        stage.scrollTop = y;
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 16)));
        if (Math.abs(stage.scrollTop - y) > 1) jumps += 1;
      }
      await new Promise((r) => setTimeout(r, 500));
      return { cls, jumps, height: stage.scrollHeight };
    });
    console.warn(`Webtoon 200 pages (${result.height} px): CLS ${result.cls.toFixed(4)}, scroll jumps ${result.jumps}`);
    await browser.close();
  } finally {
    server.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

/** A key press → the preloaded page painted, and how much of it was the turn's own work (key → new view in the document). */
async function measureTurn(page: Page): Promise<{ painted: number; work: number }> {
  await page.evaluate(() => {
    const w = window as unknown as { __t0?: number; __t1?: number; __tm?: number };
    w.__t0 = 0;
    w.__t1 = 0;
    w.__tm = 0;
    const before = document.querySelector('.reader-view')?.getAttribute('data-view');
    window.addEventListener('keydown', () => (w.__t0 = performance.now()), { capture: true, once: true });
    const observer = new MutationObserver(() => {
      const view = document.querySelector('.reader-view');
      if (view && view.getAttribute('data-view') !== before && view.querySelector('img')) {
        observer.disconnect();
        w.__tm = performance.now();
        requestAnimationFrame(() => (w.__t1 = performance.now()));
      }
    });
    observer.observe(document.body, { childList: true, subtree: true });
  });
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => (window as unknown as { __t1?: number }).__t1);
  return page.evaluate(() => {
    const w = window as unknown as { __t1: number; __t0: number; __tm: number };
    return { painted: w.__t1 - w.__t0, work: w.__tm - w.__t0 };
  });
}

await main();
