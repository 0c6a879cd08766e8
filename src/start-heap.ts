import { setFlagsFromString } from 'node:v8';

/**
 * `bindery serve` imports this first, before any other module is evaluated. Starting allocates ~60 MB of
 * short-lived objects (module code, schemas, routes) and V8 answers that rate by growing the young generation to
 * its 32 MB maximum, which then stays resident in an idle server (a third of a fresh server's RSS). Keeping its
 * growth factor at 1 while starting keeps it at its initial size; `youngGenerationMayGrow` restores V8's default
 * once the server listens, so a server under load sizes it as before (page-serving throughput unchanged).
 * V8 reads this flag at every young-generation resize, so changing it at run time takes effect.
 */
setFlagsFromString('--semi-space-growth-factor=1');

/** V8's default growth factor (2) again: called once the server is up. */
export function youngGenerationMayGrow(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
