import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, type Headers } from '../helpers/auth.js';
import type { DeepPartial } from '../helpers/config.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { Config } from '../../src/config/schema.js';

export interface CatalogTestApp extends TestApp {
  headers: Headers;
}

/** The app with its background work (task worker, scheduler) running, and admin headers. */
export async function createCatalogApp(overrides: DeepPartial<Config> = {}, options: { start?: boolean } = {}): Promise<CatalogTestApp> {
  const t = await createTestApp({ tasks: { poll_interval_ms: 50 }, rate_limit: { enabled: false }, ...overrides });
  if (options.start !== false) await t.app.background.start();
  return Object.assign(t, { headers: await adminHeaders(t) });
}

export function libraryDir(): string {
  const dir = path.join(makeTempDir('colophon-lib-'), 'library');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function api<T = Record<string, unknown>>(
  t: CatalogTestApp,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  const res = await t.app.inject({ method, url, headers: t.headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { status: res.statusCode, body: (res.body ? safeJson(res.body) : null) as T, raw: res };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function createLibrary(t: CatalogTestApp, dir: string, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  const res = await api<{ id: string }>(t, 'POST', '/api/v1/libraries', { name: path.basename(dir), path: dir, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export interface TaskBody {
  id: string;
  task_id: string;
  task_type: string;
  status: string;
  library_id: string | null;
  result: Record<string, number | string> | null;
  error: string | null;
  progress: { current: number; total: number; message: string };
}

export async function waitForTask(
  t: CatalogTestApp,
  id: string,
  until: (task: TaskBody) => boolean = (x) => ['completed', 'failed', 'cancelled'].includes(x.status),
  timeoutMs = 20_000,
): Promise<TaskBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api<TaskBody>(t, 'GET', `/api/v1/tasks/${id}`);
    expect(res.status).toBe(200);
    if (until(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts a scan and waits for it to complete; returns the finished task. */
export async function scan(t: CatalogTestApp, libraryId: string, mode?: 'normal' | 'deep'): Promise<TaskBody> {
  const res = await api<TaskBody>(t, 'POST', `/api/v1/libraries/${libraryId}/scan${mode ? `?mode=${mode}` : ''}`);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const done = await waitForTask(t, res.body.id);
  expect(done.status, done.error ?? '').toBe('completed');
  return done;
}
