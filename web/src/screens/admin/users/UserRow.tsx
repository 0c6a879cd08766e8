import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok, type components } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { PermissionPicker, type Permission, type Role } from './PermissionPicker';
import { ROLE_NAMES, ROLES } from './roles';
import { UserAccess } from './UserAccess';
import { UserError } from './UserError';

type User = components['schemas']['User'];

/** Dates as the rest of the app writes them ("Nov 25, 2026"), in the interface language. */
const DATE: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' };

/** One user of Administration → Users: role, permissions, what the user sees, disable, delete. */
export function UserRow({ user, isMe, allPermissions }: { user: User; isMe: boolean; allPermissions: Permission[] }) {
  const { t, i18n } = useLingui();
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
  const { username, email } = user;
  const joined = i18n.date(user.created_at, DATE);
  const lastSignIn = user.last_login_at ? i18n.date(user.last_login_at, DATE) : null;

  return (
    <li className="row-item user-row" aria-label={user.username}>
      <div className="row-main">
        <strong>
          {user.username}
          {isMe && (
            <span className="tag">
              <Trans context="the signed-in user">you</Trans>
            </span>
          )}
          {user.disabled && (
            <span className="tag warn">
              <Trans context="user state">disabled</Trans>
            </span>
          )}
        </strong>
        <span className="hint">
          {lastSignIn ? (
            <Trans>
              {email} · joined {joined} · last sign-in {lastSignIn}
            </Trans>
          ) : (
            <Trans>
              {email} · joined {joined} · never signed in
            </Trans>
          )}
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
              <Trans>Save permissions</Trans>
            </button>
            <button type="button" className="small" onClick={() => setPermissions(user.permissions)}>
              <Trans>Undo</Trans>
            </button>
          </div>
        )}
        {user.role === 'admin' ? (
          <p className="hint access-admin">
            <Trans>Sees everything: an administrator sees every library and series, whatever access is set.</Trans>
          </p>
        ) : (
          <UserAccess user={user} />
        )}
      </div>
      <div className="row-actions">
        <label htmlFor={roleId} className="inline-label">
          <Trans>Role</Trans>
          <select
            id={roleId}
            value={user.role}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ role: e.target.value as Role })}
          >
            {ROLES.map(([r]) => (
              <option key={r} value={r}>
                {i18n._(ROLE_NAMES[r])}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={update.isPending} onClick={() => update.mutate({ disabled: !user.disabled })}>
          {user.disabled ? (
            <Trans>
              Enable<span className="visually-hidden"> {username}</span>
            </Trans>
          ) : (
            <Trans>
              Disable<span className="visually-hidden"> {username}</span>
            </Trans>
          )}
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(t`Delete the user "${username}"? Their progress and API keys go with them.`)) remove.mutate();
          }}
        >
          <Trans>
            Delete<span className="visually-hidden"> {username}</span>
          </Trans>
        </button>
      </div>
      <UserError error={update.error ?? remove.error} />
    </li>
  );
}
