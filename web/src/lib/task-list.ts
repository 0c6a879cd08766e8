import type { TaskProgressEvent } from '../api/events';

interface TaskLike {
  id: string;
  status: TaskProgressEvent['status'];
  progress: TaskProgressEvent['progress'];
}

/**
 * Applies a progress message to a cached task list: the matching task gets the new status and progress (a
 * new array, so React redraws); null when the list does not hold that task, so the caller refetches.
 */
export function applyTaskProgress<T extends TaskLike>(tasks: readonly T[], event: TaskProgressEvent): T[] | null {
  const index = tasks.findIndex((t) => t.id === event.task_id);
  if (index < 0) return null;
  const next = tasks.slice();
  next[index] = { ...(tasks[index] as T), status: event.status, progress: event.progress };
  return next;
}
