import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createCatalogApp, type CatalogTestApp } from '../scanner/helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp({}, { start: false });
});
afterAll(() => t.close());

describe('finished tasks are pruned after task_retention_days', () => {
  it('removes finished tasks older than the retention, keeps recent and active ones', async () => {
    await api(t, 'PUT', '/api/v1/admin/settings/task_retention_days', { value: 7 });
    const queue = t.app.background.queue;
    const old = (await queue.enqueue({ type: 'purge_deleted' })).task;
    const recent = (await queue.enqueue({ type: 'purge_deleted' })).task;
    const pending = (await queue.enqueue({ type: 'detect_duplicates' })).task;
    const longAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
    await t.database.db.updateTable('tasks').set({ status: 'completed', finished_at: longAgo }).where('id', '=', old.id).execute();
    await t.database.db
      .updateTable('tasks')
      .set({ status: 'failed', finished_at: new Date().toISOString() })
      .where('id', '=', recent.id)
      .execute();
    await t.database.db.updateTable('tasks').set({ created_at: longAgo }).where('id', '=', pending.id).execute();
    await t.app.background.start();
    const deadline = Date.now() + 5000;
    while ((await api(t, 'GET', `/api/v1/tasks/${old.id}`)).status !== 404 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect((await api(t, 'GET', `/api/v1/tasks/${old.id}`)).status).toBe(404);
    expect((await api(t, 'GET', `/api/v1/tasks/${recent.id}`)).status).toBe(200);
    expect((await api(t, 'GET', `/api/v1/tasks/${pending.id}`)).status).toBe(200);
  });
});
