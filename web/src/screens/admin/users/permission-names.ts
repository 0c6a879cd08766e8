import { i18n, type MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';

/**
 * The permissions of Administration → Users in words: a name, one line on what it allows (after the server's
 * PERMISSION_GRANTS), grouped by area. The code (`libraries-read`) is shown on hover; a code unknown here falls in
 * "Other" under its own name.
 */
export interface PermissionInfo {
  name: string;
  description: string;
}

export const PERMISSION_AREAS: ReadonlyArray<{ area: MessageDescriptor; codes: readonly string[] }> = [
  { area: msg`Libraries`, codes: ['libraries-read', 'libraries-write', 'libraries-delete'] },
  {
    area: msg`Series and books`,
    codes: ['series-read', 'series-write', 'series-delete', 'books-read', 'books-write', 'books-delete', 'pages-read'],
  },
  {
    area: msg`Collections and read lists`,
    codes: ['collections-read', 'collections-write', 'collections-delete', 'read-lists-read', 'read-lists-write', 'read-lists-delete'],
  },
  { area: msg`Reading progress and devices`, codes: ['progress-read', 'progress-write', 'kobo-sync'] },
  { area: msg`API keys`, codes: ['api-keys-read', 'api-keys-write', 'api-keys-delete'] },
  { area: msg`Users`, codes: ['users-read', 'users-write', 'users-delete'] },
  { area: msg`Server`, codes: ['tasks-read', 'tasks-write', 'plugins-manage', 'system-health', 'system-admin'] },
];

export const PERMISSION_INFO: Record<string, { name: MessageDescriptor; description: MessageDescriptor }> = {
  'libraries-read': { name: msg`See libraries`, description: msg`Browse the libraries.` },
  'libraries-write': { name: msg`Manage libraries`, description: msg`Add and change libraries, start scans.` },
  'libraries-delete': { name: msg`Delete libraries`, description: msg`Remove libraries (administrators only).` },
  'series-read': { name: msg`See series`, description: msg`Series, want to read, recommendations, exports.` },
  'series-write': { name: msg`Edit series`, description: msg`Change series metadata, queue analysis.` },
  'series-delete': { name: msg`Delete series`, description: msg`Remove series (administrators only).` },
  'books-read': { name: msg`See and download books`, description: msg`Books and their files (downloads need page reading too).` },
  'books-write': { name: msg`Edit books`, description: msg`Change book metadata, queue analysis.` },
  'books-delete': { name: msg`Delete books`, description: msg`Remove books (administrators only).` },
  'pages-read': { name: msg`Read pages`, description: msg`Open books in the reader and see page images.` },
  'collections-read': { name: msg`Browse collections`, description: msg`Shared and own collections, without seeing series.` },
  'collections-write': { name: msg`Manage shared collections`, description: msg`Create and change shared collections, share or unshare.` },
  'collections-delete': {
    name: msg`Delete shared collections`,
    description: msg`Remove shared collections (own ones need no permission).`,
  },
  'read-lists-read': { name: msg`Browse read lists`, description: msg`Shared and own read lists, without seeing books.` },
  'read-lists-write': {
    name: msg`Manage shared read lists`,
    description: msg`Create, import and change shared read lists, share or unshare.`,
  },
  'read-lists-delete': { name: msg`Delete shared read lists`, description: msg`Remove shared read lists (own ones need no permission).` },
  'progress-read': { name: msg`See reading progress`, description: msg`Progress, history and reading statistics.` },
  'progress-write': { name: msg`Record reading progress`, description: msg`Mark read or unread, save positions and sessions.` },
  'kobo-sync': { name: msg`Kobo sync`, description: msg`Sync a Kobo e-reader (with books, pages and progress).` },
  'api-keys-read': { name: msg`See own API keys`, description: msg`List the keys of one’s own account.` },
  'api-keys-write': { name: msg`Create API keys`, description: msg`Create and change one’s own keys.` },
  'api-keys-delete': { name: msg`Revoke API keys`, description: msg`Revoke one’s own keys.` },
  'users-read': { name: msg`See users`, description: msg`The list of users (administrators only).` },
  'users-write': { name: msg`Manage users`, description: msg`Create and change users (administrators only).` },
  'users-delete': { name: msg`Delete users`, description: msg`Remove users (administrators only).` },
  'tasks-read': { name: msg`See tasks`, description: msg`Background tasks: scans, analysis, conversions.` },
  'tasks-write': { name: msg`Manage tasks`, description: msg`Cancel background tasks.` },
  'plugins-manage': { name: msg`Manage metadata plugins`, description: msg`Metadata plugins (administrators only).` },
  'system-health': { name: msg`See server health`, description: msg`Metrics of the server.` },
  'system-admin': { name: msg`Administer the server`, description: msg`Settings, folders, maintenance: full administration.` },
};

/** The areas with the permissions given (`all`), in their order, named in the interface language; codes of no area last, under "Other". */
export function permissionGroups<P extends string>(all: readonly P[]): Array<{ area: string; codes: P[] }> {
  const known = new Set<string>(PERMISSION_AREAS.flatMap((a) => a.codes));
  const groups = PERMISSION_AREAS.map((a) => ({ area: i18n._(a.area), codes: all.filter((p) => a.codes.includes(p)) }));
  groups.push({ area: i18n._(msg({ message: 'Other', context: 'permission area' })), codes: all.filter((p) => !known.has(p)) });
  return groups.filter((g) => g.codes.length > 0);
}

/** A permission's name and what it allows, in the interface language; a code unknown here is its own name. */
export function permissionInfo(code: string): PermissionInfo {
  const info = PERMISSION_INFO[code];
  return info ? { name: i18n._(info.name), description: i18n._(info.description) } : { name: code, description: '' };
}
