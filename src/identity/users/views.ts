import { z } from 'zod';
import { toBool } from '../../db/ids.js';
import { PERMISSIONS, ROLES, sortPermissions, userPermissions } from '../access/permissions.js';
import type { UserRow } from './repository.js';
import { parseJsonColumnOrThrow } from '../../db/json-column.js';
import { AccessFields, accessView, parseContentAccess } from '../access/content-access.js';

export const UserSummary = z
  .object({ id: z.uuid(), username: z.string(), email: z.string(), role: z.string() })
  .meta({ id: 'UserSummary' });

export const UserView = z
  .object({
    id: z.uuid(),
    username: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    permissions: z.array(z.enum(PERMISSIONS)).describe('Custom permissions held on top of the role.'),
    effective_permissions: z.array(z.enum(PERMISSIONS)).describe('Role permissions plus custom ones.'),
    email_verified: z.boolean(),
    disabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    last_login_at: z.string().nullable(),
    ...AccessFields,
  })
  .meta({ id: 'User' });
export type UserView = z.infer<typeof UserView>;

export function toUserView(row: UserRow): UserView {
  const custom = parseJsonColumnOrThrow<string[]>(row.permissions);
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    role: row.role as UserView['role'],
    permissions: sortPermissions(
      custom.filter((p): p is UserView['permissions'][number] => (PERMISSIONS as readonly string[]).includes(p)),
    ),
    effective_permissions: sortPermissions(userPermissions(row.role, custom)),
    email_verified: toBool(row.email_verified),
    disabled: toBool(row.disabled),
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_login_at: row.last_login_at,
    ...accessView(parseContentAccess(row.content_access)),
  };
}
