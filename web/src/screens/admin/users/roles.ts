import type { Role } from './PermissionPicker';

/** The roles, with what each may do, in the order they are offered. */
export const ROLES: Array<[Role, string]> = [
  ['reader', 'Reader — reads and tracks progress'],
  ['maintainer', 'Maintainer — also manages libraries and tasks'],
  ['admin', 'Administrator — everything, including users and settings'],
];
