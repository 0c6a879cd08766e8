/** Background tasks: a durable queue shared by every process on the same database. */
export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface TasksTable {
  id: string;
  type: string;
  status: TaskStatus;
  /** Higher runs first. */
  priority: number;
  /** The library the task works on, when it has one (scan status, cancel on library delete). */
  library_id: string | null;
  /** The book or series the task works on. */
  target_id: string | null;
  /** JSON: the task's input. */
  payload: string;
  /**
   * Set while a task is pending or running to forbid a second active task with the same key (for example
   * `scan_library:<library id>`); cleared when the task ends. Unique among non-null values.
   */
  active_key: string | null;
  progress_current: number;
  progress_total: number;
  progress_message: string | null;
  /** JSON: the handler's result (or live counters while running). */
  result: string | null;
  error: string | null;
  attempts: number;
  max_attempts: number;
  cancel_requested: number;
  /** Which process runs it, and when that process last said it is alive. */
  worker_id: string | null;
  heartbeat_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface TaskTables {
  tasks: TasksTable;
}
