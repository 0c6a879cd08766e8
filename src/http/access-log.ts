import type { FastifyInstance } from 'fastify';

export interface AccessLogOptions {
  /** Every request, one info line when it is answered. */
  all: boolean;
  /** Requests answered after more than this many milliseconds are logged at warn in any case. */
  slowMs: number;
  /** What a URL may carry that must not reach the log (a KOReader sync URL holds its API key). */
  redactUrl?: (url: string) => string;
}

/**
 * The access log, in place of Fastify's request logging (two lines per request, each serializing the request):
 * under a reader turning pages that logging was a large share of a page's cost. One line per request when
 * asked for, and always one for a slow request. Errors are logged where they are handled (http/errors.ts).
 */
export function registerAccessLog(app: FastifyInstance, options: AccessLogOptions): void {
  app.addHook('onResponse', (request, reply, done) => {
    const ms = reply.elapsedTime;
    // A 503 is a refusal during a database outage, counted by the outage's log lines (db/outage-reporter.ts):
    // refusals that waited for a connection would otherwise each log a slow request.
    const slow = ms > options.slowMs && reply.statusCode !== 503;
    if (options.all || slow) {
      const line = {
        reqId: request.id,
        method: request.method,
        url: options.redactUrl ? options.redactUrl(request.url) : request.url,
        statusCode: reply.statusCode,
        responseTime: Math.round(ms * 100) / 100,
      };
      if (slow) request.log.warn(line, 'slow request');
      else request.log.info(line, 'request completed');
    }
    done();
  });
}
