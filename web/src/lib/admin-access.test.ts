import { describe, expect, it } from 'vitest';
import { adminSectionsFor } from './admin-access';

describe('adminSectionsFor: administration is shown by permission, hidden otherwise', () => {
  it('a reader sees no administration at all, though it may read books', () => {
    expect(adminSectionsFor(['libraries-read', 'series-read', 'books-read', 'pages-read', 'progress-read', 'progress-write'])).toEqual([]);
  });

  it('an admin sees every section', () => {
    const all = [
      'libraries-write',
      'books-write',
      'users-read',
      'system-admin',
      'tasks-read',
      'system-health',
      'series-write',
      'plugins-manage',
    ];
    expect(adminSectionsFor(all).map((s) => s.path)).toEqual([
      '/admin/libraries',
      '/admin/inbox',
      '/admin/users',
      '/admin/settings',
      '/admin/sign-in',
      '/admin/tasks',
      '/admin/duplicates',
      '/admin/metadata-review',
      '/admin/metadata-sources',
      '/admin/analysis-errors',
      '/admin/backups',
      '/admin/server',
    ]);
  });

  it('a maintainer without user management sees library work but not users or settings', () => {
    const paths = adminSectionsFor(['libraries-read', 'libraries-write', 'books-read', 'tasks-read', 'system-health']).map((s) => s.path);
    expect(paths).toEqual(['/admin/libraries', '/admin/tasks', '/admin/duplicates', '/admin/analysis-errors', '/admin/server']);
  });

  it('filing new books (books-write) opens the inbox alone', () => {
    expect(adminSectionsFor(['books-read', 'books-write']).map((s) => s.path)).toEqual(['/admin/inbox']);
  });
});
