import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import type { Role } from './PermissionPicker';

/** The roles, with what each may do, in the order they are offered (each said with `i18n._` where it is shown). */
export const ROLES: Array<[Role, MessageDescriptor]> = [
  ['reader', msg`Reader — reads and tracks progress`],
  ['maintainer', msg`Maintainer — also manages libraries and tasks`],
  ['admin', msg`Administrator — everything, including users and settings`],
];

/** A role's own name, where one is picked by name alone (a user's row, a sign-in provider's role of new accounts). */
export const ROLE_NAMES: Record<Role, MessageDescriptor> = {
  reader: msg({ message: 'reader', context: 'user role' }),
  maintainer: msg({ message: 'maintainer', context: 'user role' }),
  admin: msg({ message: 'admin', context: 'user role' }),
};
