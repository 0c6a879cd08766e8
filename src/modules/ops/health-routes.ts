import { z } from 'zod';
import type { App } from '../../http/types.js';
import { API_VERSION } from '../../http/openapi.js';

const HealthBody = z
  .object({
    status: z.enum(['ok', 'degraded']).describe('`ok` when every check passes.'),
    version: z.string(),
    uptime_seconds: z.number(),
    checks: z.object({ database: z.enum(['ok', 'unreachable']) }),
  })
  .meta({ id: 'Health' });

const PING_TIMEOUT_MS = 2000;

export interface HealthDeps {
  pingDatabase(): Promise<void>;
}

/** `GET /health` at the server root: load balancers and Docker's healthcheck poll it, so it needs no auth. */
export function registerHealthRoutes(app: App, deps: HealthDeps): void {
  app.route({
    method: 'GET',
    url: '/health',
    config: { public: true, rateLimit: false },
    schema: {
      summary: 'Health check (server root, not under /api/v1)',
      description: 'Returns 200 with status `ok` when the database answers; 503 with status `degraded` otherwise. No authentication, not rate limited.',
      tags: ['ops'],
      security: [],
      response: { 200: HealthBody, 503: HealthBody },
    },
    handler: async (_req, reply) => {
      const database = await withTimeout(deps.pingDatabase(), PING_TIMEOUT_MS).then(
        () => 'ok' as const,
        () => 'unreachable' as const,
      );
      const body = {
        status: database === 'ok' ? ('ok' as const) : ('degraded' as const),
        version: API_VERSION,
        uptime_seconds: Math.round(process.uptime()),
        checks: { database },
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
