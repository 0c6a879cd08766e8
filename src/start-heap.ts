import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';

/**
 * `colophon serve` imports this first, before any other module is evaluated. Starting allocates tens of MB of
 * short-lived objects (module code, schemas, routes) and V8 answers that rate by growing the young generation
 * to its 32 MB maximum, which then stays resident in an idle server. Keeping its growth factor at 1 keeps it at
 * its initial size; `growYoungGenerationWhenBusy` gives V8's default back once the server is busy, so a server
 * under load sizes it as before. V8 reads this flag at every young-generation resize, so changing it at run time
 * takes effect.
 */
setFlagsFromString('--semi-space-growth-factor=1');

/** How busy the event loop must be over one check interval before the young generation may grow again. */
const BUSY_UTILIZATION = 0.3;
const CHECK_EVERY_MS = 1000;

/**
 * Restores V8's default growth factor (2) the first time the event loop is busy (over 30% of a second): an idle
 * or lightly used server keeps the small young generation, a loaded one gets the throughput of the default.
 */
export function growYoungGenerationWhenBusy(): void {
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    if (utilization < BUSY_UTILIZATION) return;
    setFlagsFromString('--semi-space-growth-factor=2');
    clearInterval(timer);
  }, CHECK_EVERY_MS);
  timer.unref();
}
