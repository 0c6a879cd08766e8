/** The little of a logger this needs (pino and Fastify's logger fit). */
export interface OutageLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface OutageReporterOptions {
  logger: OutageLogger;
  /** Resolves when the database answers a trivial query again. */
  probe: () => Promise<unknown>;
  /** How often a summary is logged while the outage lasts. Default one minute. */
  summaryEveryMs?: number;
  /** How often the database is asked whether it is back. Default one second. */
  probeEveryMs?: number;
}

/** What was refused because the database could not be reached. */
export type RefusedWork = 'request' | 'task' | 'connection';

interface Outage {
  since: number;
  cause: { code: string | null; message: string };
  refused: Record<RefusedWork, number>;
  refusedSinceSummary: number;
}

/**
 * A database outage in a bounded number of log lines: one when it starts (with its cause, no stack: the
 * outage is expected, not a bug), a summary each minute while it lasts, one when it ends. Under load, each
 * refused request used to log its own warning with a stack, ~9 GB an hour: enough to fill the disk that holds
 * the log during a long outage. Refusals are counted instead.
 */
export class DatabaseOutageReporter {
  private outage: Outage | null = null;
  private probeTimer: NodeJS.Timeout | undefined;
  private summaryTimer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(private readonly options: OutageReporterOptions) {}

  /** Whether an outage is under way (as far as this process has seen). */
  get active(): boolean {
    return this.outage !== null;
  }

  /** Counts one refusal; the first of an outage logs its start and starts watching for the end. */
  refused(err: unknown, what: RefusedWork): void {
    if (this.outage) {
      this.outage.refused[what] += 1;
      this.outage.refusedSinceSummary += 1;
      return;
    }
    const cause = causeOf(err);
    this.outage = { since: Date.now(), cause, refused: { request: 0, task: 0, connection: 0, [what]: 1 }, refusedSinceSummary: 1 };
    this.options.logger.warn({ cause, first: what }, 'database unreachable: requests are answered 503 and counted until it answers again');
    this.probeTimer = setInterval(() => this.probe(), this.options.probeEveryMs ?? 1000).unref();
    this.summaryTimer = setInterval(() => this.summarize(), this.options.summaryEveryMs ?? 60_000).unref();
  }

  /** Stops watching (the process is closing). */
  close(): void {
    clearInterval(this.probeTimer);
    clearInterval(this.summaryTimer);
    this.outage = null;
  }

  private probe(): void {
    if (this.probing || !this.outage) return;
    this.probing = true;
    this.options
      .probe()
      .then(
        () => this.end(),
        () => undefined,
      )
      .finally(() => {
        this.probing = false;
      });
  }

  private summarize(): void {
    const outage = this.outage;
    if (!outage) return;
    this.options.logger.warn(
      {
        cause: outage.cause,
        since: new Date(outage.since).toISOString(),
        refused_since_last_summary: outage.refusedSinceSummary,
        refused_requests: outage.refused.request,
        refused_tasks: outage.refused.task,
        dropped_connections: outage.refused.connection,
      },
      'database still unreachable',
    );
    outage.refusedSinceSummary = 0;
  }

  private end(): void {
    const outage = this.outage;
    if (!outage) return;
    this.close();
    this.options.logger.info(
      {
        outage_seconds: Math.round((Date.now() - outage.since) / 100) / 10,
        refused_requests: outage.refused.request,
        refused_tasks: outage.refused.task,
        dropped_connections: outage.refused.connection,
      },
      'database reachable again',
    );
  }
}

/** The first code and message along an error's causes (the socket error under the pool's wrapper, say). */
function causeOf(err: unknown): Outage['cause'] {
  let message: string | null = null;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    message ??= e.message;
    if (typeof code === 'string') return { code, message: e.message || message };
    if (e instanceof AggregateError && e.errors[0] instanceof Error) return causeOf(e.errors[0]);
  }
  return { code: null, message: message ?? String(err) };
}
