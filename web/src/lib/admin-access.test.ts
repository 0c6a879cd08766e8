import { describe, expect, it } from 'vitest';
import { adminSectionsFor } from './admin-access';

describe('adminSectionsFor: administration is shown by permission, hidden otherwise', () => {
  it('a reader sees no administration at all, though it may read books', () => {
    expect(adminSectionsFor(['libraries-read', 'series-read', 'books-read', 'pages-read', 'progress-read', 'progress-write'])).toEqual([]);
  });

  it('an admin sees every section', () => {
    const all = ['libraries-write', 'users-read', 'system-admin', 'tasks-read', 'system-health', 'series-write', 'plugins-manage'];
    expect(adminSectionsFor(all).map((s) => s.label)).toEqual([
      'Libraries',
      'Users',
      'Settings',
      'Sign-in',
      'Tasks',
      'Duplicates',
      'Metadata review',
      'Metadata sources',
      'Analysis errors',
      'Backups',
      'Server',
    ]);
  });

  it('a maintainer without user management sees library work but not users or settings', () => {
    const labels = adminSectionsFor(['libraries-read', 'libraries-write', 'books-read', 'tasks-read', 'system-health']).map((s) => s.label);
    expect(labels).toEqual(['Libraries', 'Tasks', 'Duplicates', 'Analysis errors', 'Server']);
  });
});
