import { Cron } from 'croner';

/** Why a cron expression is refused, or null when it is fine. */
export function cronError(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return `must have five fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  try {
    new Cron(expression.trim(), { paused: true }).stop();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export interface ScheduledJob {
  key: string;
  expression: string;
  nextRun: Date | null;
}

/**
 * Named cron jobs (croner). Features decide what is scheduled (the libraries service keeps one job per library
 * with automatic scanning); scheduling the same key again replaces its job, so a config change takes effect
 * without a restart. `trigger` runs a job now, which is also how tests make a schedule fire.
 */
export class Scheduler {
  private readonly jobs = new Map<string, { cron: Cron; expression: string }>();
  private running = false;

  constructor(private readonly onError: (err: unknown, key: string) => void = () => undefined) {}

  start(): void {
    this.running = true;
    for (const job of this.jobs.values()) job.cron.resume();
  }

  stop(): void {
    this.running = false;
    for (const job of this.jobs.values()) job.cron.stop();
    this.jobs.clear();
  }

  schedule(key: string, expression: string, run: () => Promise<unknown> | unknown): void {
    this.unschedule(key);
    const cron = new Cron(
      expression.trim(),
      { paused: !this.running, protect: true, catch: (err: unknown) => this.onError(err, key) },
      async () => {
        await run();
      },
    );
    this.jobs.set(key, { cron, expression: expression.trim() });
  }

  unschedule(key: string): void {
    const job = this.jobs.get(key);
    if (!job) return;
    job.cron.stop();
    this.jobs.delete(key);
  }

  get(key: string): ScheduledJob | undefined {
    const job = this.jobs.get(key);
    return job ? { key, expression: job.expression, nextRun: job.cron.nextRun() } : undefined;
  }

  list(): ScheduledJob[] {
    return [...this.jobs.keys()].map((key) => this.get(key)!);
  }

  /** Runs a job now, as if its time had come. */
  async trigger(key: string): Promise<boolean> {
    const job = this.jobs.get(key);
    if (!job) return false;
    await job.cron.trigger();
    return true;
  }
}
