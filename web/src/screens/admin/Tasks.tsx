import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { followEventStream } from '../../api/sse';
import { ErrorMessage } from '../../components/ErrorView';
import { ProgressBar } from '../../components/ProgressBar';
import { formatDuration } from '../../lib/charts';
import type { TaskProgressEvent } from '../../api/events';
import { formatDateTime } from '../../lib/format';
import { applyTaskProgress } from '../../lib/task-list';

type Task = components['schemas']['Task'];
type Status = Task['status'];

const TYPE_WORDS: Record<string, string> = {
  scan_library: 'Library scan',
  analyze_book: 'Book analysis',
  analyze_series: 'Series analysis',
  generate_thumbnails: 'Thumbnails',
  detect_duplicates: 'Duplicate detection',
  purge_deleted: 'Purge of deleted books',
};
const STATUSES: Status[] = ['pending', 'running', 'completed', 'failed', 'cancelled'];

/** Background tasks, newest first, kept live by the task stream: progress bars move, cancelled tasks end. */
export function TasksScreen() {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status | ''>('');
  const tasks = useQuery({
    queryKey: queryKeys.tasks.list(status),
    queryFn: () => ok(api.GET('/api/v1/tasks', { params: { query: { pageSize: 100, ...(status ? { status } : {}) } } })),
  });
  const stats = useQuery({ queryKey: queryKeys.tasks.stats, queryFn: () => ok(api.GET('/api/v1/tasks/stats')) });

  useEffect(() => {
    const stream = followEventStream(
      '/api/v1/tasks/stream',
      (event) => {
        if (event.name !== 'task_progress') return;
        const data = event.data as TaskProgressEvent;
        let known = true;
        queryClient.setQueriesData<{ data: Task[] }>({ queryKey: queryKeys.tasks.all }, (old) => {
          if (!old || !Array.isArray(old.data)) return old;
          const next = applyTaskProgress(old.data, data);
          if (next === null) {
            known = false;
            return old;
          }
          return { ...old, data: next };
        });
        // A task this list has not seen yet, or one that ended: refetch to get its full record and the stats.
        if (!known || (data.status !== 'running' && data.status !== 'pending'))
          void queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all });
      },
      () => void queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all }),
    );
    return () => stream.close();
  }, [queryClient]);

  const list = tasks.data?.data ?? [];
  return (
    <section aria-labelledby="tasks-heading">
      <div className="section-head">
        <h2 id="tasks-heading">Tasks</h2>
        <label className="inline-label">
          Show
          <select value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
            <option value="">All tasks</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s[0]?.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {stats.data && (
        <p className="hint">
          {stats.data.total} tasks kept · {STATUSES.map((s) => `${stats.data.by_status[s] ?? 0} ${s}`).join(' · ')}
          {stats.data.average_duration_ms !== null ? ` · ${formatDuration(stats.data.average_duration_ms / 1000)} on average` : ''}
        </p>
      )}
      <ErrorMessage error={tasks.error} />
      {tasks.isPending ? (
        <p>Loading…</p>
      ) : !tasks.data ? null : list.length === 0 ? (
        <p className="empty">{status ? `No ${status} tasks.` : 'No tasks yet — scanning a library from Libraries starts one.'}</p>
      ) : (
        <ul className="row-list" aria-label="Tasks">
          {list.map((t) => (
            <TaskRow key={t.id} task={t} />
          ))}
        </ul>
      )}
    </section>
  );
}

function TaskRow({ task }: { task: Task }) {
  const queryClient = useQueryClient();
  const cancel = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/tasks/{id}/cancel', { params: { path: { id: task.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all }),
  });
  const active = task.status === 'running' || task.status === 'pending';
  const label = TYPE_WORDS[task.task_type] ?? task.task_type;
  const p = task.progress;
  const started = task.started_at ? new Date(task.started_at) : null;
  const ended = task.finished_at ? new Date(task.finished_at) : null;
  return (
    <li className="row-item task-row" aria-label={`${label}, ${task.status}`}>
      <div className="row-main">
        <strong>
          {label} <span className={`tag status-${task.status}`}>{task.status}</span>
          {task.cancel_requested && active && <span className="tag warn">cancelling</span>}
        </strong>
        {task.status === 'running' && (
          <ProgressBar value={p.total > 0 ? p.current / p.total : 0} label={`${label} progress`} indeterminate={p.total === 0} />
        )}
        <span className="hint">
          {progressText(p)}
          {started ? ` · started ${formatDateTime(started)}` : ` · queued ${formatDateTime(task.created_at)}`}
          {started && ended ? ` · took ${formatDuration((ended.getTime() - started.getTime()) / 1000)}` : ''}
        </span>
        {task.error && <span className="error-text">{task.error}</span>}
      </div>
      {active && (
        <div className="row-actions">
          <button type="button" className="danger" disabled={cancel.isPending || task.cancel_requested} onClick={() => cancel.mutate()}>
            Cancel<span className="visually-hidden"> {label}</span>
          </button>
        </div>
      )}
      <ErrorMessage error={cancel.error} />
    </li>
  );
}

/** "12 of 30 · Scanning", or the task's own message alone when it already says the count ("Covers: 30 of 30"). */
function progressText(p: { current: number; total: number; message?: string | null }): string {
  const count = p.total > 0 ? `${p.current} of ${p.total}` : '';
  if (count && p.message?.includes(count)) return p.message;
  return [count, p.message].filter(Boolean).join(' · ');
}
