/**
 * The web app at scale (issue 19), measured in Debian's Chromium through Playwright (launch options from
 * playwright.config.ts) against the real server on loopback: `npm run bench -- --web` or `npx tsx bench/web.ts`.
 * Library: `--series N` (default 10,000) series of one tiny CBZ each (one 200×300 JPEG page, every file its own
 * zip comment so that each hashes differently), generated once under the temp folder and scanned by the server
 * itself (cover pre-generation off: covers are made when the browser asks for them, as for a new library).
 *  - home page, cold (a fresh browser context each run: empty cache, session put in localStorage before load):
 *    from navigation start to the shelves rendered (first card in a shelf row), to the first cover request,
 *    and to interactive (the end of the last long task within 1 s of the shelves, or the shelves when none);
 *    3 runs, the first also cold on the server side;
 *  - the library's grid of every series, scrolled from top to bottom one viewport at a time (two animation frames
 *    per step): the most cards in the DOM at once, and whether the last series was rendered at the bottom.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { chromium, type LaunchOptions } from '@playwright/test';
import sharp from 'sharp';
import yazl from 'yazl';
import { ADMIN, repoRoot, sleep, startServerProcess } from './server-process.js';

async function ensureTinyLibrary(series: number, log: (line: string) => void): Promise<string> {
  const root = path.join(os.tmpdir(), `colophon-bench-web-s${series}-v1`);
  const marker = path.join(root, 'complete');
  const library = path.join(root, 'library');
  if (existsSync(marker)) return library;
  const started = Date.now();
  await rm(root, { recursive: true, force: true });
  const page = await sharp({ create: { width: 200, height: 300, channels: 3, background: '#3a6ea5' } })
    .jpeg({ quality: 70 })
    .toBuffer();
  const jobs: Array<Promise<void>> = [];
  for (let s = 0; s < series; s++) {
    const name = `Series ${String(s + 1).padStart(5, '0')}`;
    const dir = path.join(library, name);
    jobs.push(
      (async () => {
        await mkdir(dir, { recursive: true });
        const zip = new yazl.ZipFile();
        zip.addBuffer(page, 'page001.jpg', { compress: false, mtime: new Date(0) });
        zip.end({ comment: `bench ${s}`, forceZip64Format: false });
        await pipeline(zip.outputStream, createWriteStream(path.join(dir, `${name} 001.cbz`)));
      })(),
    );
    if (jobs.length >= 64) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
  await writeFile(marker, '');
  log(`wrote ${series} tiny series in ${((Date.now() - started) / 1000).toFixed(1)} s under ${root}`);
  return library;
}

async function launchOptions(): Promise<LaunchOptions> {
  const config = (await import('../playwright.config.js')).default as { use?: { launchOptions?: LaunchOptions } };
  return config.use?.launchOptions ?? { executablePath: '/usr/bin/chromium-headless-shell' };
}

interface HomeRun {
  shelvesMs: number;
  firstCoverRequestMs: number;
  interactiveMs: number;
  longTasks: number;
}

export async function run(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { series: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' } },
    strict: false,
  });
  const series = Number(values.series);
  console.log(
    `web bench: ${series} series; ${os.availableParallelism()} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-if-stale.mjs')], { cwd: repoRoot, stdio: 'inherit' });
  const library = await ensureTinyLibrary(series, console.log);
  const server = await startServerProcess({ thumbnails: { pregenerate: false } });
  const browser = await chromium.launch(await launchOptions());
  try {
    const scanStarted = performance.now();
    const lib = (await server.call<{ id: string }>('POST', '/libraries', { name: 'Big', path: library })).body;
    const task = (await server.call<{ id: string }>('POST', `/libraries/${lib.id}/scan`)).body;
    for (;;) {
      const t = (await server.call<{ status: string; error: string | null }>('GET', `/tasks/${task.id}`)).body;
      if (t.status === 'completed') break;
      if (t.status === 'failed' || t.status === 'cancelled') throw new Error(`scan ${t.status}: ${t.error}`);
      await sleep(100);
    }
    console.log(`scan of ${series} tiny books: ${((performance.now() - scanStarted) / 1000).toFixed(1)} s`);
    const login = (
      await server.call<{ access_token: string; expires_in: number; user: { username: string } }>('POST', '/auth/login', {
        username: ADMIN.username,
        password: ADMIN.password,
      })
    ).body;
    const session = JSON.stringify({
      token: login.access_token,
      expiresAt: Date.now() + login.expires_in * 1000,
      username: login.user.username,
    });

    const newPage = async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript((value) => {
        const g = globalThis as unknown as {
          localStorage: { setItem(k: string, v: string): void };
          __longTasks: Array<{ start: number; end: number }>;
          PerformanceObserver: new (cb: (list: { getEntries(): Array<{ startTime: number; duration: number }> }) => void) => {
            observe(o: object): void;
          };
        };
        g.localStorage.setItem('colophon.session', value);
        g.__longTasks = [];
        new g.PerformanceObserver((list) => {
          for (const e of list.getEntries()) g.__longTasks.push({ start: e.startTime, end: e.startTime + e.duration });
        }).observe({ type: 'longtask', buffered: true });
      }, session);
      return { context, page: await context.newPage() };
    };

    const homeRuns: HomeRun[] = [];
    for (let i = 0; i < Number(values.runs); i++) {
      const { context, page } = await newPage();
      await page.goto(`${server.base}/`, { waitUntil: 'commit' });
      // Browser-side code as strings (this project's TypeScript has no DOM library), each a promise that checks
      // on every animation frame; page.evaluate runs it through the DevTools protocol, which the app's CSP allows
      // (waitForFunction evaluates strings inside the page, which it does not).
      const when = (test: string) =>
        `new Promise((resolve) => { const check = () => { const v = ${test}; if (v) resolve(v); else requestAnimationFrame(check); }; check(); })`;
      const shelvesMs = (await page.evaluate(when("document.querySelector('.shelf-row li') ? performance.now() : 0"))) as number;
      const firstCoverRequestMs = (await page.evaluate(
        when(
          "(() => { const c = performance.getEntriesByType('resource').filter((e) => e.name.includes('/thumbnail')); return c.length ? Math.min(...c.map((e) => e.startTime)) : 0; })()",
        ),
      )) as number;
      await page.waitForTimeout(1000);
      const longTasks = await page.evaluate(
        () => (globalThis as unknown as { __longTasks: Array<{ start: number; end: number }> }).__longTasks,
      );
      const before = longTasks.filter((t) => t.start <= shelvesMs + 1000);
      const interactiveMs = Math.max(shelvesMs, ...before.map((t) => t.end));
      homeRuns.push({ shelvesMs, firstCoverRequestMs, interactiveMs, longTasks: longTasks.length });
      await context.close();
    }

    const { context, page } = await newPage();
    await page.goto(`${server.base}/libraries/${lib.id}`);
    await page.getByText(`${series} series`).waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="series-card"]').first().waitFor();
    const scrollStarted = performance.now();
    const scroll = (await page.evaluate(`(async (last) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const cards = () => document.querySelectorAll('[data-testid="series-card"]');
      let most = 0;
      let steps = 0;
      for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight) {
        window.scrollTo(0, y);
        await frame();
        most = Math.max(most, cards().length);
        steps++;
      }
      window.scrollTo(0, document.documentElement.scrollHeight);
      // The last rows may still be loading: up to 20 s for them.
      const until = performance.now() + 20000;
      let sawLast = false;
      while (!sawLast && performance.now() < until) {
        await frame();
        sawLast = [...cards()].some((c) => c.textContent.includes(last));
        most = Math.max(most, cards().length);
      }
      return { most, steps, sawLast, height: document.documentElement.scrollHeight };
    })(${JSON.stringify(`Series ${String(series).padStart(5, '0')}`)})`)) as {
      most: number;
      steps: number;
      sawLast: boolean;
      height: number;
    };
    const scrollMs = performance.now() - scrollStarted;
    await context.close();

    const fmt = (xs: number[]) => `${xs.map((x) => x.toFixed(0)).join(', ')} ms`;
    console.log('\n| measure (Chromium, loopback, cold context) | runs | goal |');
    console.log('|---|---|---|');
    const under = (xs: number[]) => `< 1.5 s ${xs.every((x) => x < 1500) ? '✓' : '✗'}`;
    const shelves = homeRuns.map((r) => r.shelvesMs);
    const covers = homeRuns.map((r) => r.firstCoverRequestMs);
    const interactive = homeRuns.map((r) => r.interactiveMs);
    console.log(`| home: navigation start → shelves rendered | ${fmt(shelves)} | ${under(shelves)} |`);
    console.log(`| home: navigation start → first cover requested | ${fmt(covers)} | ${under(covers)} |`);
    console.log(
      `| home: navigation start → interactive (end of the last long task within 1 s of the shelves) | ${fmt(interactive)} | ${under(interactive)} |`,
    );
    console.log(
      `| grid of ${series} series scrolled top to bottom (${scroll.steps} viewport steps, ${(scrollMs / 1000).toFixed(1)} s, ${Math.round(scroll.height)} px): most cards in the DOM | ${scroll.most}${scroll.sawLast ? '' : ' (the last series never rendered!)'} | ≤ ~300 ${scroll.most <= 300 && scroll.sawLast ? '✓' : '✗'} |`,
    );
    console.log(
      `load average after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await browser.close();
    await server.stop();
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) await run();
