import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, waitForTask, type CatalogTestApp, type TaskBody } from '../scanner/helpers.js';

describe('Scheduler: scanning_config.enabled + cron_schedule run scans on time; config changes reschedule', () => {
  let t: CatalogTestApp;
  beforeAll(async () => {
    t = await createCatalogApp();
  });
  afterAll(() => t.close());

  const job = (id: string) => t.app.background.scheduler.get(`library-scan:${id}`);

  it('an enabled library gets a cron job; firing it queues a scan in the default mode', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'C/C 01.cbz', { pages: 1 });
    const lib = await createLibrary(t, dir, { scanning_config: { enabled: true, cron_schedule: '* * * * *', default_mode: 'deep' } });
    const scheduled = job(lib.id)!;
    expect(scheduled.expression).toBe('* * * * *');
    expect(scheduled.nextRun!.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    expect(await t.app.background.scheduler.trigger(`library-scan:${lib.id}`)).toBe(true);
    const tasks = await api<{ data: Array<TaskBody & { payload: { mode: string; reason: string } }> }>(
      t,
      'GET',
      `/api/v1/tasks?type=scan_library&library_id=${lib.id}`,
    );
    expect(tasks.body.data).toHaveLength(1);
    expect(tasks.body.data[0]!.payload).toEqual({ mode: 'deep', reason: 'schedule' });
    expect((await waitForTask(t, tasks.body.data[0]!.id)).status).toBe('completed');
  });

  it('changing the cron reschedules and disabling unschedules, without a restart', async () => {
    const lib = await createLibrary(t, libraryDir(), { scanning_config: { enabled: true, cron_schedule: '0 3 * * *' } });
    expect(job(lib.id)!.expression).toBe('0 3 * * *');
    await api(t, 'PATCH', `/api/v1/libraries/${lib.id}`, { scanning_config: { cron_schedule: '30 4 * * 1' } });
    const next = job(lib.id)!;
    expect(next.expression).toBe('30 4 * * 1');
    expect(next.nextRun!.getUTCDay() === 1 || next.nextRun!.getDay() === 1).toBe(true);
    await api(t, 'PATCH', `/api/v1/libraries/${lib.id}`, { scanning_config: { enabled: false } });
    expect(job(lib.id)).toBeUndefined();
    await api(t, 'PATCH', `/api/v1/libraries/${lib.id}`, { scanning_config: { enabled: true } });
    expect(job(lib.id)!.expression).toBe('30 4 * * 1');
    await api(t, 'DELETE', `/api/v1/libraries/${lib.id}`);
    expect(job(lib.id)).toBeUndefined();
  });

  it('enabled without a cron_schedule is a 400', async () => {
    const res = await api(t, 'POST', '/api/v1/libraries', { name: 'x', path: libraryDir(), scanning_config: { enabled: true } });
    expect(res.status).toBe(400);
  });

  it('the job really fires on its own when its time comes', async () => {
    // croner checks the clock itself: schedule a per-second job through the same Scheduler and wait for it.
    let fired = 0;
    t.app.background.scheduler.schedule('test-every-second', '* * * * * *', () => {
      fired++;
    });
    await new Promise((r) => setTimeout(r, 2100));
    t.app.background.scheduler.unschedule('test-every-second');
    expect(fired).toBeGreaterThanOrEqual(1);
  });
});

describe('scan_on_start: libraries marked scan_on_start are scanned at startup', () => {
  it('queues and runs a scan when background work starts', async () => {
    const t = await createCatalogApp({}, { start: false });
    try {
      const dir = libraryDir();
      await makeCbz(dir, 'S/S 01.cbz', { pages: 1 });
      const lib = await createLibrary(t, dir, { scanning_config: { scan_on_start: true } });
      const other = await createLibrary(t, libraryDir());
      await t.app.background.start();
      const tasks = await api<{ data: Array<TaskBody & { payload: { reason: string } }> }>(t, 'GET', '/api/v1/tasks?type=scan_library');
      expect(tasks.body.data.map((x) => x.library_id)).toEqual([lib.id]);
      expect(tasks.body.data[0]!.payload.reason).toBe('scan_on_start');
      expect((await waitForTask(t, tasks.body.data[0]!.id)).status).toBe('completed');
      expect(tasks.body.data.some((x) => x.library_id === other.id)).toBe(false);
    } finally {
      await t.close();
    }
  });
});
