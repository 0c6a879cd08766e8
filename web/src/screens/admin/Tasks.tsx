import type { I18n, MessageDescriptor } from '@lingui/core';
import { msg, plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
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

const TYPE_WORDS: Record<string, MessageDescriptor> = {
  scan_library: msg`Library scan`,
  analyze_book: msg`Book analysis`,
  analyze_series: msg`Series analysis`,
  generate_thumbnails: msg`Thumbnails`,
  detect_duplicates: msg`Duplicate detection`,
  purge_deleted: msg`Purge of deleted books`,
};
const STATUSES: Status[] = ['pending', 'running', 'completed', 'failed', 'cancelled'];

/** A task's status as its tag says it (the API's value). */
const STATUS_WORDS: Record<Status, MessageDescriptor> = {
  pending: msg({ message: 'pending', context: 'task status' }),
  running: msg({ message: 'running', context: 'task status' }),
  completed: msg({ message: 'completed', context: 'task status' }),
  failed: msg({ message: 'failed', context: 'task status' }),
  cancelled: msg({ message: 'cancelled', context: 'task status' }),
};

/** The status filter's choices. */
const STATUS_CHOICES: Record<Status, MessageDescriptor> = {
  pending: msg({ message: 'Pending', context: 'task status' }),
  running: msg({ message: 'Running', context: 'task status' }),
  completed: msg({ message: 'Completed', context: 'task status' }),
  failed: msg({ message: 'Failed', context: 'task status' }),
  cancelled: msg({ message: 'Cancelled', context: 'task status' }),
};

/** The list under a status filter that holds nothing. */
const NONE_WITH_STATUS: Record<Status, MessageDescriptor> = {
  pending: msg`No pending tasks.`,
  running: msg`No running tasks.`,
  completed: msg`No completed tasks.`,
  failed: msg`No failed tasks.`,
  cancelled: msg`No cancelled tasks.`,
};

/** "3 completed": how many tasks have a status (each its own message, as the word agrees with the number elsewhere). */
function statusCount(status: Status, n: number): string {
  switch (status) {
    case 'pending':
      return plural(n, { one: `${n} pending`, other: `${n} pending` });
    case 'running':
      return plural(n, { one: `${n} running`, other: `${n} running` });
    case 'completed':
      return plural(n, { one: `${n} completed`, other: `${n} completed` });
    case 'failed':
      return plural(n, { one: `${n} failed`, other: `${n} failed` });
    case 'cancelled':
      return plural(n, { one: `${n} cancelled`, other: `${n} cancelled` });
  }
}

const typeLabel = (i18n: I18n, type: string) => {
  const words = TYPE_WORDS[type];
  return words ? i18n._(words) : type;
};
const statusLabel = (i18n: I18n, status: Status) => {
  const words = STATUS_WORDS[status];
  return words ? i18n._(words) : status;
};

/** Background tasks, newest first, kept live by the task stream: progress bars move, cancelled tasks end. */
export function TasksScreen() {
  const { t, i18n } = useLingui();
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
  let statsText = '';
  if (stats.data) {
    const { total, by_status: byStatus, average_duration_ms: averageMs } = stats.data;
    const kept = plural(total, { one: `${total} tasks kept`, other: `${total} tasks kept` });
    const counts = STATUSES.map((s) => statusCount(s, byStatus[s] ?? 0)).join(' · ');
    const average = averageMs !== null ? formatDuration(averageMs / 1000) : '';
    statsText = `${kept} · ${counts}${averageMs !== null ? ` · ${t`${average} on average`}` : ''}`;
  }
  const emptyText = status ? i18n._(NONE_WITH_STATUS[status]) : t`No tasks yet — scanning a library from Libraries starts one.`;
  return (
    <section aria-labelledby="tasks-heading">
      <div className="section-head">
        <h2 id="tasks-heading">
          <Trans>Tasks</Trans>
        </h2>
        <label className="inline-label">
          <Trans>Show</Trans>
          <select value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
            <option value="">{t`All tasks`}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {i18n._(STATUS_CHOICES[s])}
              </option>
            ))}
          </select>
        </label>
      </div>
      {stats.data && <p className="hint">{statsText}</p>}
      <ErrorMessage error={tasks.error} />
      {tasks.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !tasks.data ? null : list.length === 0 ? (
        <p className="empty">{emptyText}</p>
      ) : (
        <ul className="row-list" aria-label={t`Tasks`}>
          {list.map((t) => (
            <TaskRow key={t.id} task={t} />
          ))}
        </ul>
      )}
    </section>
  );
}

function TaskRow({ task }: { task: Task }) {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const cancel = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/tasks/{id}/cancel', { params: { path: { id: task.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all }),
  });
  const active = task.status === 'running' || task.status === 'pending';
  const label = typeLabel(i18n, task.task_type);
  const state = statusLabel(i18n, task.status);
  const p = task.progress;
  const started = task.started_at ? new Date(task.started_at) : null;
  const ended = task.finished_at ? new Date(task.finished_at) : null;
  const startedAt = started ? formatDateTime(started) : '';
  const queuedAt = formatDateTime(task.created_at);
  const { current, total } = p;
  const count = t`${current} of ${total}`;
  const took = started && ended ? formatDuration((ended.getTime() - started.getTime()) / 1000) : '';
  return (
    <li className="row-item task-row" aria-label={`${label}, ${state}`}>
      <div className="row-main">
        <strong>
          {label} <span className={`tag status-${task.status}`}>{state}</span>
          {task.cancel_requested && active && (
            <span className="tag warn">
              <Trans>cancelling</Trans>
            </span>
          )}
        </strong>
        {task.status === 'running' && (
          <ProgressBar value={p.total > 0 ? p.current / p.total : 0} label={t`${label} progress`} indeterminate={p.total === 0} />
        )}
        <span className="hint">
          {progressText(p, count)}
          {started ? ` · ${t`started ${startedAt}`}` : ` · ${t`queued ${queuedAt}`}`}
          {started && ended ? ` · ${t`took ${took}`}` : ''}
        </span>
        {task.error && <span className="error-text">{task.error}</span>}
      </div>
      {active && (
        <div className="row-actions">
          <button type="button" className="danger" disabled={cancel.isPending || task.cancel_requested} onClick={() => cancel.mutate()}>
            <Trans>
              Cancel<span className="visually-hidden"> {label}</span>
            </Trans>
          </button>
        </div>
      )}
      <ErrorMessage error={cancel.error} />
    </li>
  );
}

/**
 * "12 of 30 · Scanning", or the task's own message alone when it already says the count ("Covers: 30 of 30"). The
 * server writes its messages in English: the count is looked for as it writes it; `count` is the same in words.
 */
function progressText(p: { current: number; total: number; message?: string | null }, count: string): string {
  if (p.total > 0 && p.message?.includes(`${p.current} of ${p.total}`)) return p.message;
  return [p.total > 0 ? count : '', p.message].filter(Boolean).join(' · ');
}
