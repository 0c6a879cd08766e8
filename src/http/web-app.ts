import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** The web app's build (`vite build`): the same path from src/http (tsx, tests) and dist/http (npm start). */
export const DEFAULT_WEB_APP_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface WebAppOptions {
  /** The built web app (index.html and assets/); nothing is served when it holds no index.html. */
  root: string;
  /** The interactive API reference's path (config `api.api_docs_path`): never answered with the app. */
  docsPath: string;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const INDEX_CACHE = 'no-cache';
/** Files at the build's root (icons) keep their names across builds: cached for a day, then revalidated. */
const ROOT_FILE_CACHE = 'public, max-age=86400';

/**
 * First path segments that belong to the API and the feeds; `/{prefix}/api/...` (the Komga-compatible API at
 * any prefix) is recognised by its second segment. These always keep their JSON 404.
 */
const API_SEGMENTS = new Set(['api', 'opds', 'health', 'metrics']);

/**
 * Whether an unmatched request is a browser navigation to one of the app's own URLs (`/series/…`), which
 * gets index.html so the client router can draw it: GET or HEAD, HTML accepted, not an API or feed path,
 * and not a file name (a missing `/assets/x.js` stays a 404, not HTML the browser would try to run).
 */
export function isAppNavigation(method: string, url: string, accept: string | undefined, docsPath: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (!accept?.includes('text/html')) return false;
  const path = url.split('?')[0] ?? '/';
  const docs = docsPath.replace(/\/+$/, '');
  if (docs && (path === docs || path.startsWith(`${docs}/`))) return false;
  const segments = path.split('/').filter(Boolean);
  if (segments[0] !== undefined && API_SEGMENTS.has(segments[0])) return false;
  if (segments[1] === 'api') return false;
  const last = segments.at(-1) ?? '';
  return !last.includes('.');
}

/** Asked again on every load: the service worker (a new one is how a new version is found) and the app manifest. */
const ALWAYS_REVALIDATED = new Set(['index.html', 'sw.js', 'manifest.webmanifest']);

function cacheControlFor(relativePath: string): string {
  if (ALWAYS_REVALIDATED.has(relativePath)) return INDEX_CACHE;
  if (relativePath.startsWith('assets/')) return IMMUTABLE;
  return ROOT_FILE_CACHE;
}

/**
 * Serves the web app from the same process as the API: every built file as its own route (so no wildcard
 * shadows an API path), and index.html for unknown navigations (the SPA fallback). The files are public
 * and not rate limited: the app's shell holds no data, the API behind it checks every call.
 */
export async function registerWebApp(app: FastifyInstance, options: WebAppOptions): Promise<void> {
  const indexPath = join(options.root, 'index.html');
  if (!existsSync(indexPath)) {
    app.log.warn({ root: options.root }, 'web app not built (npm run build:web): only the API is served');
    return;
  }
  const index = readFileSync(indexPath);

  // The routes are listed here rather than by @fastify/static's `wildcard: false` (a glob over the folder at
  // every start, the slowest part of registering the app); it only sends the files.
  const files = readdirSync(options.root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => relative(options.root, join(entry.parentPath, entry.name)).replace(/\\/g, '/'));
  await app.register(async (web) => {
    web.addHook('onRoute', (route: RouteOptions) => {
      route.config = { ...(route.config as object), public: true, rateLimit: false };
    });
    await web.register(fastifyStatic, {
      root: options.root,
      serve: false,
      cacheControl: false,
      // @fastify/static 10 passes the reply here (its types still say ServerResponse).
      setHeaders: (res: { header(name: string, value: string): unknown }, filePath: string) => {
        res.header('Cache-Control', cacheControlFor(relative(options.root, filePath).replace(/\\/g, '/')));
      },
    });
    for (const file of files) {
      const send = (_request: FastifyRequest, reply: FastifyReply) => reply.sendFile(file);
      web.route({ method: ['GET', 'HEAD'], url: `/${file}`, schema: { hide: true }, handler: send });
      if (file === 'index.html') web.route({ method: ['GET', 'HEAD'], url: '/', schema: { hide: true }, handler: send });
    }
  });

  // Callback style: every request passes here, and the others (a page turn) must not pay a promise for it.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (!request.is404 || !isAppNavigation(request.method, request.url, request.headers.accept, options.docsPath)) return done();
    // Answered here: Fastify ends the request once a callback hook sends without calling done().
    reply.code(200).type('text/html; charset=utf-8').header('Cache-Control', INDEX_CACHE).send(index);
  });
}
