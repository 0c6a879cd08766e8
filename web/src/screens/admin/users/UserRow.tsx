import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok, type components } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { formatDate } from '../../../lib/format';
import { PermissionPicker, type Permission, type Role } from './PermissionPicker';
import { ROLES } from './roles';
import { UserAccess } from './UserAccess';
import { UserError } from './UserError';

type User = components['schemas']['User'];

/** One user of Administration → Users: role, permissions, what the user sees, disable, delete. */
export function UserRow({ user, isMe, allPermissions }: { user: User; isMe: boolean; allPermissions: Permission[] }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (body: { role?: Role; disabled?: boolean; permissions?: Permission[] }) =>
      ok(api.PATCH('/api/v1/users/{id}', { params: { path: { id: user.id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.users.all }),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/users/{id}', { params: { path: { id: user.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.users.all }),
  });
  const [permissions, setPermissions] = useState<Permission[]>(user.permissions);
  const changedPermissions = permissions.length !== user.permissions.length || permissions.some((p) => !user.permissions.includes(p));
  const roleId = `role-${user.id}`;

  return (
    <li className="row-item user-row" aria-label={user.username}>
      <div className="row-main">
        <strong>
          {user.username}
          {isMe && <span className="tag">you</span>}
          {user.disabled && <span className="tag warn">disabled</span>}
        </strong>
        <span className="hint">
          {user.email} · joined {formatDate(user.created_at)} ·{' '}
          {user.last_login_at ? `last sign-in ${formatDate(user.last_login_at)}` : 'never signed in'}
        </span>
        <PermissionPicker
          all={allPermissions}
          role={user.role}
          selected={permissions}
          onChange={setPermissions}
          idPrefix={`perm-${user.id}`}
        />
        {changedPermissions && (
          <div className="inline">
            <button type="button" className="small primary" onClick={() => update.mutate({ permissions })}>
              Save permissions
            </button>
            <button type="button" className="small" onClick={() => setPermissions(user.permissions)}>
              Undo
            </button>
          </div>
        )}
        {user.role === 'admin' ? (
          <p className="hint access-admin">Sees everything: an administrator sees every library and series, whatever access is set.</p>
        ) : (
          <UserAccess user={user} />
        )}
      </div>
      <div className="row-actions">
        <label htmlFor={roleId} className="inline-label">
          Role
          <select
            id={roleId}
            value={user.role}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ role: e.target.value as Role })}
          >
            {ROLES.map(([r]) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={update.isPending} onClick={() => update.mutate({ disabled: !user.disabled })}>
          {user.disabled ? 'Enable' : 'Disable'}
          <span className="visually-hidden"> {user.username}</span>
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete the user "${user.username}"? Their progress and API keys go with them.`)) remove.mutate();
          }}
        >
          Delete<span className="visually-hidden"> {user.username}</span>
        </button>
      </div>
      <UserError error={update.error ?? remove.error} />
    </li>
  );
}
