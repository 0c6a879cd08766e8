import type { components } from '../api/client';

export type Permission = components['schemas']['CurrentUser']['permissions'][number];

/**
 * The administration sections and the permission each needs (the server checks again; this only decides
 * what is shown). A user holding none of them sees no Administration link at all.
 */
export const ADMIN_SECTIONS = [
  { path: '/admin/libraries', label: 'Libraries', needs: 'libraries-write' },
  { path: '/admin/users', label: 'Users', needs: 'users-read' },
  { path: '/admin/settings', label: 'Settings', needs: 'system-admin' },
  { path: '/admin/sign-in', label: 'Sign-in', needs: 'system-admin' },
  { path: '/admin/tasks', label: 'Tasks', needs: 'tasks-read' },
  { path: '/admin/duplicates', label: 'Duplicates', needs: 'libraries-write' },
  { path: '/admin/metadata-review', label: 'Metadata review', needs: 'series-write' },
  { path: '/admin/metadata-sources', label: 'Metadata sources', needs: 'plugins-manage' },
  { path: '/admin/analysis-errors', label: 'Analysis errors', needs: 'libraries-write' },
  { path: '/admin/backups', label: 'Backups', needs: 'system-admin' },
  { path: '/admin/server', label: 'Server', needs: 'system-health' },
] as const satisfies ReadonlyArray<{ path: string; label: string; needs: Permission }>;

export type AdminSection = (typeof ADMIN_SECTIONS)[number];

/** Sections this user may open, in menu order. */
export function adminSectionsFor(permissions: readonly string[]): AdminSection[] {
  const held = new Set(permissions);
  return ADMIN_SECTIONS.filter((s) => held.has(s.needs));
}
