import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How far V8 lets the old generation grow past what survived the last full collection, while background tasks
 * run. By default it may grow to about four times the live size before the next one, and a scan's batches (rows,
 * parameters and events held until their transaction commits) outlive the young generation and leave their
 * garbage there: a 10,000-book first scan ended with 105 MB of heap in use for about 35 MB alive. At most 1.2×
 * keeps that scan's peak ~50 MB lower for no measurable CPU (bench/scan-probe.ts, docs/decisions/028-memory-of-a-first-scan.md). Not for
 * the whole process: page serving over a 10,000-book library fell from 0.86 to 0.57 of its floor with it
 * (`bench/outside.ts --books 10000 --only pages`, the same build with and without).
 *
 * The flag is process-wide (the analysis workers' heaps follow it) and V8 reads it each time it sets the next
 * limit, after a full collection; `0` is V8's own, dynamic factor.
 */
const WHILE_TASKS_RUN = '--heap-growing-percent=20';
const DEFAULT = '--heap-growing-percent=0';

let collectGarbage: (() => void) | undefined;

/**
 * One full collection: the limit in force was set with the default factor, and until the heap reached it (tens
 * of MB into a scan) the tighter one would not count. A few tens of ms once per busy period. `gc` is reachable
 * only in a context created after `--expose-gc` is set; nothing is added to this one's globals.
 */
function collectNow(): void {
  if (!collectGarbage) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
}

export function tightHeapGrowthWhileBusy(busy: boolean): void {
  setFlagsFromString(busy ? WHILE_TASKS_RUN : DEFAULT);
  if (busy) collectNow();
}
