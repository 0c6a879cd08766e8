import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { NewUserForm } from './users/NewUserForm';
import type { Permission } from './users/PermissionPicker';
import { UserRow } from './users/UserRow';

/**
 * Administration → Users: the list, adding a user (users/NewUserForm.tsx), and per user its role, permissions and
 * what it sees (users/UserRow.tsx, with the access editor in users/AccessForm.tsx).
 */
export function UsersScreen() {
  const { t } = useLingui();
  const users = useQuery({
    queryKey: queryKeys.users.all,
    queryFn: () => ok(api.GET('/api/v1/users', { params: { query: { pageSize: 500 } } })),
  });
  const me = useQuery(meQuery);
  const [creating, setCreating] = useState(false);
  // Every permission name: an administrator's own effective permissions are all of them.
  const allPermissions = (me.data?.permissions ?? []) as Permission[];
  const list = users.data?.data ?? [];

  return (
    <section aria-labelledby="users-heading">
      <div className="section-head">
        <h2 id="users-heading">
          <Trans>Users</Trans>
        </h2>
        {!creating && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            <Trans>Add user</Trans>
          </button>
        )}
      </div>
      {creating && <NewUserForm allPermissions={allPermissions} onDone={() => setCreating(false)} />}
      <ErrorMessage error={users.error} />
      {users.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !users.data ? null : list.length === 0 ? (
        <p className="empty">
          <Trans>No users yet — add one.</Trans>
        </p>
      ) : (
        <ul className="row-list" aria-label={t`Users`}>
          {list.map((u) => (
            <UserRow key={u.id} user={u} isMe={u.id === me.data?.id} allPermissions={allPermissions} />
          ))}
        </ul>
      )}
    </section>
  );
}
