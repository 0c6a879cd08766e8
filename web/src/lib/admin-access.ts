import { i18n, type MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import type { components } from '../api/client';

export type Permission = components['schemas']['CurrentUser']['permissions'][number];

/**
 * The administration sections and the permission each needs (the server checks again; this only decides
 * what is shown). A user holding none of them sees no Administration link at all.
 */
export const ADMIN_SECTIONS = [
  { path: '/admin/libraries', message: msg`Libraries`, needs: 'libraries-write' },
  { path: '/admin/inbox', message: msg`Inbox`, needs: 'books-write' },
  { path: '/admin/users', message: msg`Users`, needs: 'users-read' },
  { path: '/admin/settings', message: msg`Settings`, needs: 'system-admin' },
  { path: '/admin/sign-in', message: msg`Sign-in`, needs: 'system-admin' },
  { path: '/admin/tasks', message: msg`Tasks`, needs: 'tasks-read' },
  { path: '/admin/duplicates', message: msg`Duplicates`, needs: 'libraries-write' },
  { path: '/admin/metadata-review', message: msg`Metadata review`, needs: 'series-write' },
  { path: '/admin/metadata-sources', message: msg`Metadata sources`, needs: 'plugins-manage' },
  { path: '/admin/analysis-errors', message: msg`Analysis errors`, needs: 'libraries-write' },
  { path: '/admin/backups', message: msg`Backups`, needs: 'system-admin' },
  { path: '/admin/server', message: msg`Server`, needs: 'system-health' },
] as const satisfies ReadonlyArray<{ path: string; message: MessageDescriptor; needs: Permission }>;

/** A section with its label in the active language (`message`, the catalogue's, for a screen that renders it itself). */
export type AdminSection = (typeof ADMIN_SECTIONS)[number] & { label: string };

/** Sections this user may open, in menu order. */
export function adminSectionsFor(permissions: readonly string[]): AdminSection[] {
  const held = new Set(permissions);
  return ADMIN_SECTIONS.filter((s) => held.has(s.needs)).map((s) => ({ ...s, label: i18n._(s.message) }));
}
