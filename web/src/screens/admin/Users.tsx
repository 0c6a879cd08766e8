import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDate } from '../../lib/format';
import { explainUserError } from '../../lib/last-admin';

type User = components['schemas']['User'];
type Role = User['role'];
type Permission = User['permissions'][number];

const ROLES: Array<[Role, string]> = [
  ['reader', 'Reader — reads and tracks progress'],
  ['maintainer', 'Maintainer — also manages libraries and tasks'],
  ['admin', 'Administrator — everything, including users and settings'],
];

function UserError({ error }: { error: unknown }) {
  const explained = explainUserError(error);
  if (explained)
    return (
      <p className="error-text" role="alert">
        {explained}
      </p>
    );
  return <ErrorMessage error={error} />;
}

export function UsersScreen() {
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
        <h2 id="users-heading">Users</h2>
        {!creating && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Add user
          </button>
        )}
      </div>
      {creating && <NewUserForm allPermissions={allPermissions} onDone={() => setCreating(false)} />}
      <ErrorMessage error={users.error} />
      {users.isPending ? (
        <p>Loading…</p>
      ) : !users.data ? null : list.length === 0 ? (
        <p className="empty">No users yet — add one.</p>
      ) : (
        <ul className="row-list" aria-label="Users">
          {list.map((u) => (
            <UserRow key={u.id} user={u} isMe={u.id === me.data?.id} allPermissions={allPermissions} />
          ))}
        </ul>
      )}
    </section>
  );
}

function PermissionPicker({
  all,
  role,
  selected,
  onChange,
  idPrefix,
}: {
  all: Permission[];
  role: Role;
  selected: Permission[];
  onChange(p: Permission[]): void;
  idPrefix: string;
}) {
  return (
    <details className="permission-picker">
      <summary>Custom permissions ({selected.length})</summary>
      <p className="hint">
        Held on top of the role. Admin-only permissions take effect only for administrators.
        {role === 'admin' ? ' An administrator already holds every permission.' : ''}
      </p>
      <div className="permission-grid">
        {all.map((p) => (
          <label key={p} className="check" htmlFor={`${idPrefix}-${p}`}>
            <input
              id={`${idPrefix}-${p}`}
              type="checkbox"
              checked={selected.includes(p)}
              onChange={(e) => onChange(e.target.checked ? [...selected, p] : selected.filter((x) => x !== p))}
            />
            <code>{p}</code>
          </label>
        ))}
      </div>
    </details>
  );
}

function NewUserForm({ allPermissions, onDone }: { allPermissions: Permission[]; onDone(): void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ username: '', email: '', password: '', role: 'reader' as Role });
  const [permissions, setPermissions] = useState<Permission[]>([]);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/users', { body: { ...form, permissions } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.users.all });
      onDone();
    },
  });
  const set = (key: 'username' | 'email' | 'password') => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [key]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-label="Add a user">
      <h3>Add a user</h3>
      <div className="form-grid">
        <label>
          Username
          <input required minLength={2} maxLength={64} autoComplete="off" value={form.username} onChange={set('username')} />
        </label>
        <label>
          E-mail
          <input type="email" required autoComplete="off" value={form.email} onChange={set('email')} />
        </label>
        <label>
          Password
          <input type="password" required minLength={8} autoComplete="new-password" value={form.password} onChange={set('password')} />
        </label>
        <label>
          Role
          <select value={form.role} onChange={(e) => setForm((f) => ({ ...f, role: e.target.value as Role }))}>
            {ROLES.map(([r, label]) => (
              <option key={r} value={r}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <PermissionPicker all={allPermissions} role={form.role} selected={permissions} onChange={setPermissions} idPrefix="new-user" />
      <UserError error={create.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create user
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function UserRow({ user, isMe, allPermissions }: { user: User; isMe: boolean; allPermissions: Permission[] }) {
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
