import { missingPermission, scopeFor, type Caller, type ContentScope, type Permission } from '../../identity/index.js';

/**
 * What collections, read lists and the want-to-read shelf share: how two names compare, who looks, and the right a
 * change of a shared list needs. One copy, so that the three kinds of list cannot drift apart.
 */

/** How lists' names compare: case, surrounding spaces and Unicode form aside (the lists' `name_key`). */
export const listNameKey = (name: string): string => name.trim().normalize('NFC').toLowerCase();

/** Who looks at lists: the owner of private lists, and the series rules of what they may see. */
export interface Viewer {
  userId: string;
  scope: ContentScope;
}

export const viewerOf = (caller: Caller): Viewer => ({ userId: caller.user.id, scope: scopeFor(caller) });

/** A shared list (owner null) is changed only with the list kind's write or delete permission; 403 naming it and why. */
export function requireSharedRight(caller: Caller, permission: Permission, why: string): void {
  if (!caller.permissions.has(permission)) throw missingPermission(permission, why);
}
