import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { PermissionPicker, type Permission, type Role } from './PermissionPicker';
import { ROLES } from './roles';
import { UserError } from './UserError';

/** Administration → Users → Add user. What the new account may see is set on its row once it exists. */
export function NewUserForm({ allPermissions, onDone }: { allPermissions: Permission[]; onDone(): void }) {
  const { t, i18n } = useLingui();
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
    <form className="card stack" onSubmit={submit} aria-label={t`Add a user`}>
      <h3>
        <Trans>Add a user</Trans>
      </h3>
      <div className="form-grid">
        <label>
          <Trans>Username</Trans>
          <input required minLength={2} maxLength={64} autoComplete="off" value={form.username} onChange={set('username')} />
        </label>
        <label>
          <Trans>E-mail</Trans>
          <input type="email" required autoComplete="off" value={form.email} onChange={set('email')} />
        </label>
        <label>
          <Trans>Password</Trans>
          <input type="password" required minLength={8} autoComplete="new-password" value={form.password} onChange={set('password')} />
        </label>
        <label>
          <Trans>Role</Trans>
          <select value={form.role} onChange={(e) => setForm((f) => ({ ...f, role: e.target.value as Role }))}>
            {ROLES.map(([r, label]) => (
              <option key={r} value={r}>
                {i18n._(label)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <PermissionPicker all={allPermissions} role={form.role} selected={permissions} onChange={setPermissions} idPrefix="new-user" />
      <p className="hint">
        <Trans>
          Which libraries, ages and labels the new user sees is set on its row once it is created (until then, the setting “New users see
          all libraries” decides).
        </Trans>
      </p>
      <UserError error={create.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={create.isPending}>
          <Trans>Create user</Trans>
        </button>
        <button type="button" onClick={onDone}>
          <Trans>Cancel</Trans>
        </button>
      </div>
    </form>
  );
}
