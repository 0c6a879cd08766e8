/**
 * Every augmentation of Fastify's types, in one file: what the app decorates itself and its requests with, and
 * the route options our hooks read. Types only (nothing imports it at run time; the compiler reads it with src/).
 */
import type { Background } from './composition-root.js';
import type { EventBus } from './events/bus.js';
import type { AppError } from './http/errors.js';
import type { RouteEntry } from './http/route-table.js';
import type { SseHub } from './http/sse.js';
import type { Caller, Credentials } from './identity/index.js';
import type { KomgaSession } from './protocols/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The in-process event bus (entity, scan and task events). */
    events: EventBus;
    /** Libraries, scanning and tasks; `background.start()` starts the background work (server.ts, tests). */
    background: Background;
    /** Open SSE streams (metrics count them; shutdown closes them). */
    sse: SseHub;
    /** On PostgreSQL: carry bus events to and from other instances (server.ts and tests start it). */
    startEventBridge(): Promise<void>;
    /** Every route of the app, native, feeds, Komga and the web app alike, in registration order (http/route-table.ts). */
    readonly routeTable: readonly RouteEntry[];
  }

  interface FastifyRequest {
    /** The caller the auth hooks resolved (identity/auth/hooks.ts). */
    caller: Caller | null;
    /** Why presented credentials were refused; reported only if the route needs a caller. */
    authError: AppError | null;
    /** The credentials the caller was resolved from (see `callerAgain`). */
    credentials: Credentials | null;
    /** The database version as a request of a `keepWhileUnchanged` route began, before its caller was resolved. */
    unchangedSince?: string;
    /** A keepable answer being computed: its key, and the database version when it began (undefined: not kept). */
    unchangedAnswer?: { key: string; since: string | undefined };
    /** The Komga session the request presented (cookie or X-Auth-Token), when valid (protocols/komga/gate.ts). */
    komgaSession: KomgaSession | null;
  }

  interface FastifyContextConfig {
    /** The permission a caller needs (kebab-case), or several of which it needs any one; checked after authentication. */
    permission?: string | readonly string[];
    /** Reachable without credentials (health, login, setup). */
    public?: boolean;
    /** `false` exempts the route from rate limiting (health, event streams). */
    rateLimit?: boolean;
    /**
     * Its JSON answers are kept per caller and request while the database is unchanged (http/unchanged-answers.ts):
     * only for answers that depend on nothing but the database, the caller, the URL and the body.
     */
    keepWhileUnchanged?: boolean;
    /** Which challenge a 401 carries: OPDS readers and Komga apps only prompt for Basic. */
    authChallenge?: 'basic' | 'bearer';
    /** Also accepts the web app's access token from its file cookie (FILE_COOKIE): a plain link can download. */
    fileCookie?: boolean;
    /** A route of the Komga-compatible API: reachable only under the current prefix while the API is enabled. */
    komga?: boolean;
  }
}
