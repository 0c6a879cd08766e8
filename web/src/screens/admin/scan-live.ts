import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { ScanEvent } from '../../api/events';
import { followEventStream } from '../../api/sse';

type ScanStatus = components['schemas']['ScanStatus'];

export interface LiveScan {
  taskId: string | null;
  state: ScanStatus['state'];
  processed: number;
  discovered: number;
  seriesCreated: number;
  booksAdded: number;
  errors: number;
  error: string | null;
}

const STATE_OF: Record<ScanEvent['type'], ScanStatus['state']> = {
  scan_started: 'running',
  scan_progress: 'running',
  scan_completed: 'completed',
  scan_failed: 'failed',
  scan_cancelled: 'cancelled',
};

/** Folds one scan event into the per-library view; later events replace earlier ones. */
export function applyScanEvent(current: ReadonlyMap<string, LiveScan>, event: ScanEvent): Map<string, LiveScan> {
  const next = new Map(current);
  next.set(event.library_id, {
    taskId: event.task_id,
    state: STATE_OF[event.type] ?? 'running',
    processed: event.files_processed,
    discovered: event.files_discovered,
    seriesCreated: event.series_created,
    booksAdded: event.books_added,
    errors: event.errors,
    error: event.error ?? null,
  });
  return next;
}

export function fromStatus(status: ScanStatus): LiveScan {
  return {
    taskId: status.task_id,
    state: status.state,
    processed: status.counters.files_processed || status.progress.current,
    discovered: status.counters.files_discovered || status.progress.total,
    seriesCreated: status.counters.series_created,
    booksAdded: status.counters.books_added,
    errors: status.counters.errors,
    error: status.error,
  };
}

export const isActive = (state: ScanStatus['state'] | undefined) => state === 'pending' || state === 'running';

/**
 * Live scan state of every library: the scans active when the screen opens, then the scan stream. A scan that
 * ends refreshes the library list (its counts and last scan time changed).
 */
export function useLiveScans(): { scans: ReadonlyMap<string, LiveScan>; started(libraryId: string, taskId: string): void } {
  const queryClient = useQueryClient();
  const active = useQuery({
    queryKey: queryKeys.scans.active,
    queryFn: () => ok(api.GET('/api/v1/scans/active', { params: { query: { pageSize: 100 } } })),
  });
  const [live, setLive] = useState<ReadonlyMap<string, LiveScan>>(new Map());

  useEffect(() => {
    const stream = followEventStream(
      '/api/v1/scans/stream',
      (event) => {
        const data = event.data as ScanEvent;
        if (!data || typeof data.library_id !== 'string') return;
        setLive((current) => applyScanEvent(current, data));
        if (data.type !== 'scan_progress') void queryClient.invalidateQueries({ queryKey: queryKeys.libraries.all });
      },
      () => void queryClient.invalidateQueries({ queryKey: queryKeys.scans.active }),
    );
    return () => stream.close();
  }, [queryClient]);

  const merged = new Map<string, LiveScan>();
  for (const status of active.data?.data ?? []) merged.set(status.library_id, fromStatus(status));
  for (const [id, scan] of live) merged.set(id, scan);
  // A scan just asked for shows as pending until its first event arrives (which may have come already).
  const started = (libraryId: string, taskId: string) =>
    setLive((current) =>
      current.get(libraryId)?.taskId === taskId
        ? current
        : new Map(current).set(libraryId, {
            taskId,
            state: 'pending',
            processed: 0,
            discovered: 0,
            seriesCreated: 0,
            booksAdded: 0,
            errors: 0,
            error: null,
          }),
    );
  return { scans: merged, started };
}
