import type { components } from '../api/client';

export type Permission = components['schemas']['CurrentUser']['permissions'][number];

/**
 * The administration sections and the permission each needs (the server checks again; this only decides
 * what is shown). A user holding none of them sees no Administration link at all. Their names are the
 * administration screen's (screens/admin/AdminLayout.tsx): this list is on the first screen, the words are not.
 */
export const ADMIN_SECTIONS = [
  { path: '/admin/libraries', needs: 'libraries-write' },
  { path: '/admin/inbox', needs: 'books-write' },
  { path: '/admin/users', needs: 'users-read' },
  { path: '/admin/settings', needs: 'system-admin' },
  { path: '/admin/sign-in', needs: 'system-admin' },
  { path: '/admin/tasks', needs: 'tasks-read' },
  { path: '/admin/duplicates', needs: 'libraries-write' },
  { path: '/admin/metadata-review', needs: 'series-write' },
  { path: '/admin/metadata-sources', needs: 'plugins-manage' },
  { path: '/admin/analysis-errors', needs: 'libraries-write' },
  { path: '/admin/backups', needs: 'system-admin' },
  { path: '/admin/server', needs: 'system-health' },
] as const satisfies ReadonlyArray<{ path: string; needs: Permission }>;

export type AdminSection = (typeof ADMIN_SECTIONS)[number];
export type AdminPath = AdminSection['path'];

/** Sections this user may open, in menu order. */
export function adminSectionsFor(permissions: readonly string[]): AdminSection[] {
  const held = new Set(permissions);
  return ADMIN_SECTIONS.filter((s) => held.has(s.needs));
}
