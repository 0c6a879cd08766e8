/**
 * Real scanned libraries for browsing and progress tests: files are generated with the media fixtures in a
 * temp folder, the library is created over HTTP and scanned by the real scanner (the task runs to completion).
 * Builds on the scanner tests' helpers (app with the worker running, scan-and-wait).
 */
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';
import type { Headers } from './auth.js';

export { api, createCatalogApp, libraryDir, scan, type CatalogTestApp };

export interface ScannedLibrary {
  id: string;
  dir: string;
}

/** Creates a folder, lets `build` fill it, then creates the library and scans it to completion. */
export async function scannedLibrary(t: CatalogTestApp, build: (dir: string) => Promise<void>): Promise<ScannedLibrary> {
  const dir = libraryDir();
  await build(dir);
  const { id } = await createLibrary(t, dir);
  await scan(t, id);
  return { id, dir };
}

/** An HTTP call with explicit headers (another user, an API key). */
export async function call<T = Record<string, unknown>>(
  t: CatalogTestApp,
  headers: Headers,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  const res = await t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
  let body: unknown = null;
  try {
    body = res.body ? JSON.parse(res.body) : null;
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, body: body as T, raw: res };
}

export interface Paged<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
  links: Record<string, string>;
}
