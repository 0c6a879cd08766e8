import { AppError } from '../../http/errors.js';
import { z } from 'zod';

/** The spec's 29 permission names and `kobo-sync` (a Kobo e-reader's key), kebab-case on the wire. */
export const PERMISSIONS = [
  'libraries-read',
  'libraries-write',
  'libraries-delete',
  'series-read',
  'series-write',
  'series-delete',
  'books-read',
  'books-write',
  'books-delete',
  'collections-read',
  'collections-write',
  'collections-delete',
  'read-lists-read',
  'read-lists-write',
  'read-lists-delete',
  'pages-read',
  'progress-read',
  'progress-write',
  'users-read',
  'users-write',
  'users-delete',
  'api-keys-read',
  'api-keys-write',
  'api-keys-delete',
  'tasks-read',
  'tasks-write',
  'plugins-manage',
  'system-health',
  'system-admin',
  'kobo-sync',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const KNOWN = new Set<string>(PERMISSIONS);

/** What each permission grants, for the OpenAPI description and `GET /auth/me`. */
export const PERMISSION_GRANTS: Record<Permission, string> = {
  'libraries-read': 'View libraries',
  'libraries-write': 'Create and update libraries, start scans',
  'libraries-delete': 'Delete libraries (admin)',
  'series-read': 'View series, want-to-read, recommendations, exports',
  'series-write': 'Update series, queue analysis',
  'series-delete': 'Delete series (admin)',
  'books-read': 'View books, download files (with pages-read)',
  'books-write': 'Update book metadata, queue analysis',
  'books-delete': 'Delete books (admin)',
  'collections-read': 'Browse collections (shared ones and your own) without series-read, which browses them too',
  'collections-write': 'Create and change shared collections, share or unshare one (your own need only series-read or collections-read)',
  'collections-delete': 'Delete shared collections (your own need only series-read or collections-read)',
  'read-lists-read': 'Browse read lists (shared ones and your own) without books-read, which browses them too',
  'read-lists-write':
    'Create, import and change shared read lists, share or unshare one (your own need only books-read or read-lists-read)',
  'read-lists-delete': 'Delete shared read lists (your own need only books-read or read-lists-read)',
  'pages-read': 'View page images',
  'progress-read': 'View progress, history and statistics',
  'progress-write': 'Update progress, mark read or unread, record sessions',
  'users-read': 'View users (admin)',
  'users-write': 'Create and update users (admin)',
  'users-delete': 'Delete users (admin)',
  'api-keys-read': 'View own API keys',
  'api-keys-write': 'Create and update own API keys',
  'api-keys-delete': 'Revoke own API keys',
  'tasks-read': 'View background tasks',
  'tasks-write': 'Manage (cancel) background tasks',
  'plugins-manage': 'Manage metadata plugins (admin)',
  'system-health': 'View metrics',
  'system-admin': 'Full admin access: settings, filesystem, maintenance',
  'kobo-sync':
    'Sync a Kobo e-reader through /kobo/{key}/ (with books-read, pages-read, progress-read and progress-write); an administrator grants it',
};

/**
 * The spec's roles: a maintainer holds 15 permissions, a reader the first 9 of them. Lists and Kobo sync are not in
 * them (docs/decisions/040): one's own collections and read lists are views of what one may read (series-read,
 * books-read; BROWSE_* below), shared lists need the list permissions, and an administrator grants those and
 * kobo-sync as custom permissions.
 */
const READER: Permission[] = [
  'libraries-read',
  'series-read',
  'books-read',
  'pages-read',
  'progress-read',
  'progress-write',
  'api-keys-read',
  'api-keys-write',
  'api-keys-delete',
];
const MAINTAINER: Permission[] = [
  ...READER,
  'libraries-write',
  'series-write',
  'books-write',
  'tasks-read',
  'tasks-write',
  'system-health',
];

export const ROLES = ['admin', 'maintainer', 'reader'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  admin: PERMISSIONS,
  maintainer: MAINTAINER,
  reader: READER,
};

/**
 * Only an administrator may hold these, whatever custom permissions say. The others beyond a role (the list
 * permissions, kobo-sync, a maintainer's for a reader) an administrator may grant as custom permissions.
 */
export const ADMIN_ONLY: ReadonlySet<Permission> = new Set<Permission>([
  'libraries-delete',
  'series-delete',
  'books-delete',
  'users-read',
  'users-write',
  'users-delete',
  'plugins-manage',
  'system-admin',
]);

/** A route's permission: one name, or several of which the caller needs any one. */
export type PermissionRule = Permission | readonly Permission[];

/** Browsing collections, and changing one's own: series-read (they are views of series) or collections-read (a key without it). */
export const BROWSE_COLLECTIONS = ['collections-read', 'series-read'] as const satisfies readonly Permission[];
/** Browsing read lists, and changing one's own: books-read or read-lists-read. */
export const BROWSE_READ_LISTS = ['read-lists-read', 'books-read'] as const satisfies readonly Permission[];

export const ruleNames = (rule: PermissionRule): readonly Permission[] => (typeof rule === 'string' ? [rule] : rule);

export function holdsRule(perms: ReadonlySet<Permission>, rule: PermissionRule): boolean {
  return ruleNames(rule).some((p) => perms.has(p));
}

export const PRESETS = {
  reader_app: ['libraries-read', 'series-read', 'books-read', 'pages-read', 'progress-read', 'progress-write'],
  automation_script: ['libraries-read', 'libraries-write', 'tasks-read', 'tasks-write'],
  mobile_app: ['libraries-read', 'series-read', 'books-read', 'books-write', 'pages-read'],
  metadata_tool: ['libraries-read', 'series-read', 'series-write', 'books-read', 'books-write'],
} as const satisfies Record<string, readonly Permission[]>;
export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** `libraries:read` and `LIBRARIES-READ` both become `libraries-read`; anything else stays as sent so it can be reported. */
export function normalizePermissionName(name: string): string {
  return name.trim().toLowerCase().replace(/:/g, '-').replace(/_/g, '-');
}

export function isPermission(name: string): name is Permission {
  return KNOWN.has(name);
}

/** A request field holding permission names: kebab or colon form; unknown names are a 400 naming them. */
export const PermissionName = z
  .string()
  .transform((raw, ctx) => {
    const name = normalizePermissionName(raw);
    if (!isPermission(name)) {
      ctx.addIssue({ code: 'custom', message: `unknown permission "${raw}"` });
      return z.NEVER;
    }
    return name;
  })
  .describe('Permission name, kebab-case (`libraries-read`); the colon form (`libraries:read`) is accepted.');

export const PermissionList = z.array(PermissionName).max(PERMISSIONS.length * 2);

/** Role permissions plus the user's custom ones; admin-only permissions stay admin-only. */
export function userPermissions(role: string, custom: readonly string[]): Set<Permission> {
  const base = ROLE_PERMISSIONS[role as Role] ?? [];
  const out = new Set<Permission>(base);
  for (const p of custom) if (isPermission(p) && (role === 'admin' || !ADMIN_ONLY.has(p))) out.add(p);
  return out;
}

/** Rule 1: a key's effective permissions = (role ∪ custom) ∩ the key's requested permissions, every request. */
export function keyPermissions(userPerms: ReadonlySet<Permission>, requested: readonly string[]): Set<Permission> {
  return new Set(requested.filter((p): p is Permission => isPermission(p) && userPerms.has(p)));
}

export function sortPermissions(perms: Iterable<Permission>): Permission[] {
  const order = new Map<string, number>(PERMISSIONS.map((p, i) => [p, i]));
  return [...perms].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}

/**
 * The 403 of a caller without `permission` (the route hook's, and a service's that needs a second one). For a rule
 * of several names, `required_permission` is the first and `any_of` lists them all.
 */
export function missingPermission(rule: PermissionRule, why = ''): AppError {
  const names = ruleNames(rule);
  const first = names[0]!;
  if (names.length === 1)
    return new AppError(403, 'Forbidden', `Missing permission "${first}" (${PERMISSION_GRANTS[first]})${why}`, {
      required_permission: first,
    });
  return new AppError(403, 'Forbidden', `Missing permission: one of ${names.map((n) => `"${n}"`).join(', ')}${why}`, {
    required_permission: first,
    any_of: [...names],
  });
}
