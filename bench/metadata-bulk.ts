/**
 * `npm run bench -- --metadata`: issue 38's bulk metadata edit, one request changing 1,000 series (goal < 2 s on
 * SQLite). The server runs as users run it (bench/server-process.ts: `node dist/cli.js serve`, its own process,
 * temp data folder) and is driven over HTTP on loopback. The library: 1,000 series folders of one small CBZ each
 * (written once under the temp folder). Measured, 5 times each, alternating: `PATCH /api/v1/series` on all 1,000 ids
 * (reading direction set and a genre added: 2,000 history entries and 2,000 locks in one transaction), and the undo
 * of that change as a whole (`POST /api/v1/history/{entry}/undo`). Prints every run, the best and the median, and the
 * load average before and after.
 */
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCbz } from '../test/media/fixtures.js';
import { sleep, startServerProcess } from './server-process.js';

const SERIES = 1000;
const RUNS = 5;
const GOAL_MS = 2000;

const loadText = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');

async function corpus(): Promise<string> {
  const root = path.join(os.tmpdir(), `colophon-bench-metadata-${SERIES}`, 'library');
  const done = path.join(root, '..', 'complete');
  if (existsSync(done)) return root;
  for (let i = 0; i < SERIES; i++) {
    const folder = path.join(root, `Series ${String(i).padStart(4, '0')}`);
    mkdirSync(folder, { recursive: true });
    await makeCbz(folder, 'v01.cbz', {
      pages: 1,
      pageSize: { width: 16, height: 24 },
      comicInfo: { Series: `Series ${i}`, Genre: 'Action' },
    });
  }
  mkdirSync(done);
  return root;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  const library = await corpus();
  const server = await startServerProcess();
  try {
    const created = (await server.call<{ id: string }>('POST', '/libraries', { name: 'Bench', path: library })).body;
    const task = (await server.call<{ id: string }>('POST', `/libraries/${created.id}/scan`)).body;
    for (;;) {
      const t = (await server.call<{ status: string }>('GET', `/tasks/${task.id}`)).body;
      if (t.status === 'completed') break;
      if (t.status === 'failed' || t.status === 'cancelled') throw new Error(`scan ${t.status}`);
      await sleep(100);
    }
    const ids: string[] = [];
    for (let page = 1; ids.length < SERIES; page++) {
      const got = (await server.call<{ data: { id: string }[] }>('GET', `/series?pageSize=500&page=${page}`)).body.data;
      if (got.length === 0) break;
      ids.push(...got.map((s) => s.id));
    }
    if (ids.length !== SERIES) throw new Error(`expected ${SERIES} series, found ${ids.length}`);

    const edits: number[] = [];
    const undos: number[] = [];
    const before = os.loadavg();
    for (let i = 0; i < RUNS; i++) {
      let clock = performance.now();
      const res = await server.call<{ group_id: string; updated: number }>('PATCH', '/series', {
        ids,
        changes: { reading_direction: i % 2 ? 'vertical' : 'rtl' },
        add: { genres: [`Bench ${i}`] },
      });
      edits.push(performance.now() - clock);
      if (res.body.updated !== SERIES) throw new Error(`updated ${res.body.updated}`);
      const history = (await server.call<{ data: { id: string; group_id: string }[] }>('GET', `/series/${ids[0]}/history`)).body.data;
      const entry = history.find((e) => e.group_id === res.body.group_id);
      if (!entry) throw new Error('no history entry');
      clock = performance.now();
      const undone = await server.call<{ undone: unknown[] }>('POST', `/history/${entry.id}/undo`);
      undos.push(performance.now() - clock);
      if (undone.body.undone.length !== SERIES * 2) throw new Error(`undid ${undone.body.undone.length}`);
    }
    const after = os.loadavg();
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    console.log(`metadata bulk edit, ${SERIES} series in one PATCH /series (SQLite, ${os.cpus().length} cores, Node ${process.version})`);
    console.log(`  edit:  ${edits.map(ms).join(', ')}; best ${ms(Math.min(...edits))}, median ${ms(median(edits))} (goal < ${GOAL_MS} ms)`);
    console.log(`  undo:  ${undos.map(ms).join(', ')}; best ${ms(Math.min(...undos))}, median ${ms(median(undos))}`);
    console.log(`  load average before ${loadText(before)}, after ${loadText(after)}`);
  } finally {
    await server.stop();
  }
}
