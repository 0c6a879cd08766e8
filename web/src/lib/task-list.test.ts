import { describe, expect, it } from 'vitest';
import { applyTaskProgress } from './task-list';

const task = (id: string, status: 'pending' | 'running' = 'running') => ({
  id,
  status,
  progress: { current: 0, total: 10, message: '' },
  task_type: 'scan_library',
});

describe('applyTaskProgress: the task stream moves the cached list', () => {
  it("updates the matching task's status and progress in a new array, leaving the others", () => {
    const before = [task('a'), task('b', 'pending')];
    const after = applyTaskProgress(before, {
      task_id: 'b',
      task_type: 'scan_library',
      status: 'running',
      progress: { current: 4, total: 10, message: 'Saga 004.cbz' },
    });
    expect(after).not.toBe(before);
    expect(after?.[1]).toEqual({ ...before[1], status: 'running', progress: { current: 4, total: 10, message: 'Saga 004.cbz' } });
    expect(after?.[0]).toBe(before[0]);
    expect(before[1]?.status).toBe('pending');
  });

  it('answers null for a task the list does not hold, so the list is fetched again', () => {
    expect(
      applyTaskProgress([task('a')], {
        task_id: 'z',
        task_type: 'analyze_book',
        status: 'running',
        progress: { current: 0, total: 1, message: '' },
      }),
    ).toBeNull();
  });
});
