import { z } from 'zod';
import type { App } from '../../http/types.js';
import { API_VERSION } from '../../http/openapi.js';
import type { StorageCheck } from './storage-health.js';

const HealthBody = z
  .object({
    status: z.enum(['ok', 'degraded']).describe('`ok` when every check passes.'),
    version: z.string(),
    uptime_seconds: z.number(),
    checks: z.object({
      database: z.enum(['ok', 'unreachable']),
      disk: z
        .enum(['ok', 'low', 'unknown'])
        .describe(
          '`low` when a volume the server writes to has less free space than `health.min_free_disk_mb`, or a write was refused for lack of space in the last minute; `unknown` when measuring the volumes did not answer in time (a hung network mount).',
        ),
      libraries: z
        .enum(['ok', 'missing'])
        .optional()
        .describe(
          '`missing` when the folder of a watched library is gone (an unmounted drive): its watching is paused and its books are kept; `reasons` names the library by id.',
        ),
    }),
    reasons: z.array(z.string()).optional().describe('Why the status is `degraded`; absent when it is `ok`.'),
  })
  .meta({ id: 'Health' });

const PING_TIMEOUT_MS = 2000;

export interface HealthDeps {
  pingDatabase(): Promise<void>;
  checkStorage(): Promise<StorageCheck>;
  /** Libraries whose folder is missing (watching paused, books kept) or whose watching failed, in sentences. */
  libraryProblems(): string[];
  /** Other reasons the server is degraded, in sentences (the last scheduled backup failed). */
  otherProblems?(): string[];
}

/** `GET /health` at the server root: load balancers and Docker's healthcheck poll it, so it needs no auth. */
export function registerHealthRoutes(app: App, deps: HealthDeps): void {
  app.route({
    method: 'GET',
    url: '/health',
    config: { public: true, rateLimit: false },
    schema: {
      summary: 'Health check (server root, not under /api/v1)',
      description:
        'Returns 200 with status `ok` when the database answers and the disk has room; 503 with status `degraded` when the database does not answer. A full disk is 200 with status `degraded` and the reason: reads and logins still work, only writes are refused (507), so a load balancer should keep the instance. No authentication, not rate limited.',
      tags: ['ops'],
      security: [],
      response: { 200: HealthBody, 503: HealthBody },
    },
    handler: async (_req, reply) => {
      const [database, storage] = await Promise.all([
        withTimeout(deps.pingDatabase(), PING_TIMEOUT_MS).then(
          () => 'ok' as const,
          () => 'unreachable' as const,
        ),
        // A hung mount can stall stat/statfs forever: a health check must answer, so storage gets a deadline too.
        withTimeout(deps.checkStorage(), PING_TIMEOUT_MS).catch((): { disk: 'unknown'; reasons: string[] } => ({
          disk: 'unknown',
          reasons: ['the storage check did not answer in time'],
        })),
      ]);
      const libraryProblems = deps.libraryProblems();
      const reasons = [
        ...(database === 'ok' ? [] : ['the database does not answer']),
        ...storage.reasons,
        ...libraryProblems,
        ...(deps.otherProblems?.() ?? []),
      ];
      const body = {
        status: reasons.length === 0 ? ('ok' as const) : ('degraded' as const),
        version: API_VERSION,
        uptime_seconds: Math.round(process.uptime()),
        checks: { database, disk: storage.disk, libraries: libraryProblems.length > 0 ? ('missing' as const) : ('ok' as const) },
        ...(reasons.length > 0 ? { reasons } : {}),
      };
      return reply.code(database === 'ok' ? 200 : 503).send(body);
    },
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
