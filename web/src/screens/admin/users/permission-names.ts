/**
 * The permissions of Administration → Users in words: a name, one line on what it allows (after the server's
 * PERMISSION_GRANTS), grouped by area. The code (`libraries-read`) is shown on hover; a code unknown here falls in
 * "Other" under its own name.
 */
export interface PermissionInfo {
  name: string;
  description: string;
}

export const PERMISSION_AREAS: ReadonlyArray<{ area: string; codes: readonly string[] }> = [
  { area: 'Libraries', codes: ['libraries-read', 'libraries-write', 'libraries-delete'] },
  {
    area: 'Series and books',
    codes: ['series-read', 'series-write', 'series-delete', 'books-read', 'books-write', 'books-delete', 'pages-read'],
  },
  {
    area: 'Collections and read lists',
    codes: ['collections-read', 'collections-write', 'collections-delete', 'read-lists-read', 'read-lists-write', 'read-lists-delete'],
  },
  { area: 'Reading progress and devices', codes: ['progress-read', 'progress-write', 'kobo-sync'] },
  { area: 'API keys', codes: ['api-keys-read', 'api-keys-write', 'api-keys-delete'] },
  { area: 'Users', codes: ['users-read', 'users-write', 'users-delete'] },
  { area: 'Server', codes: ['tasks-read', 'tasks-write', 'plugins-manage', 'system-health', 'system-admin'] },
];

export const PERMISSION_INFO: Record<string, PermissionInfo> = {
  'libraries-read': { name: 'See libraries', description: 'Browse the libraries.' },
  'libraries-write': { name: 'Manage libraries', description: 'Add and change libraries, start scans.' },
  'libraries-delete': { name: 'Delete libraries', description: 'Remove libraries (administrators only).' },
  'series-read': { name: 'See series', description: 'Series, want to read, recommendations, exports.' },
  'series-write': { name: 'Edit series', description: 'Change series metadata, queue analysis.' },
  'series-delete': { name: 'Delete series', description: 'Remove series (administrators only).' },
  'books-read': { name: 'See and download books', description: 'Books and their files (downloads need page reading too).' },
  'books-write': { name: 'Edit books', description: 'Change book metadata, queue analysis.' },
  'books-delete': { name: 'Delete books', description: 'Remove books (administrators only).' },
  'pages-read': { name: 'Read pages', description: 'Open books in the reader and see page images.' },
  'collections-read': { name: 'Browse collections', description: 'Shared and own collections, without seeing series.' },
  'collections-write': { name: 'Manage shared collections', description: 'Create and change shared collections, share or unshare.' },
  'collections-delete': { name: 'Delete shared collections', description: 'Remove shared collections (own ones need no permission).' },
  'read-lists-read': { name: 'Browse read lists', description: 'Shared and own read lists, without seeing books.' },
  'read-lists-write': { name: 'Manage shared read lists', description: 'Create, import and change shared read lists, share or unshare.' },
  'read-lists-delete': { name: 'Delete shared read lists', description: 'Remove shared read lists (own ones need no permission).' },
  'progress-read': { name: 'See reading progress', description: 'Progress, history and reading statistics.' },
  'progress-write': { name: 'Record reading progress', description: 'Mark read or unread, save positions and sessions.' },
  'kobo-sync': { name: 'Kobo sync', description: 'Sync a Kobo e-reader (with books, pages and progress).' },
  'api-keys-read': { name: 'See own API keys', description: 'List the keys of one’s own account.' },
  'api-keys-write': { name: 'Create API keys', description: 'Create and change one’s own keys.' },
  'api-keys-delete': { name: 'Revoke API keys', description: 'Revoke one’s own keys.' },
  'users-read': { name: 'See users', description: 'The list of users (administrators only).' },
  'users-write': { name: 'Manage users', description: 'Create and change users (administrators only).' },
  'users-delete': { name: 'Delete users', description: 'Remove users (administrators only).' },
  'tasks-read': { name: 'See tasks', description: 'Background tasks: scans, analysis, conversions.' },
  'tasks-write': { name: 'Manage tasks', description: 'Cancel background tasks.' },
  'plugins-manage': { name: 'Manage metadata plugins', description: 'Metadata plugins (administrators only).' },
  'system-health': { name: 'See server health', description: 'Metrics of the server.' },
  'system-admin': { name: 'Administer the server', description: 'Settings, folders, maintenance: full administration.' },
};

/** The areas with the permissions given (`all`), in their order; codes of no area last, under "Other". */
export function permissionGroups<P extends string>(all: readonly P[]): Array<{ area: string; codes: P[] }> {
  const known = new Set<string>(PERMISSION_AREAS.flatMap((a) => a.codes));
  const groups = PERMISSION_AREAS.map((a) => ({ area: a.area, codes: all.filter((p) => a.codes.includes(p)) }));
  groups.push({ area: 'Other', codes: all.filter((p) => !known.has(p)) });
  return groups.filter((g) => g.codes.length > 0);
}

export const permissionInfo = (code: string): PermissionInfo => PERMISSION_INFO[code] ?? { name: code, description: '' };
