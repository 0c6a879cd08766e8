import { Trans } from '@lingui/react/macro';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client';
import { getSession, startSession } from '../../api/session';
import { ErrorMessage } from '../../components/ErrorView';

/** Account → Password: change it; this browser stays signed in, the account's other sessions end. */
export function PasswordScreen() {
  const [form, setForm] = useState({ current: '', next: '', confirm: '' });
  const mismatch = form.confirm !== '' && form.confirm !== form.next;
  const change = useMutation({
    // The server ends every session of the account on a password change (its security stamp): this browser signs
    // in again with the new password at once, so only the other devices have to.
    mutationFn: async () => {
      const username = getSession()?.username;
      await ok(api.POST('/api/v1/auth/change-password', { body: { current_password: form.current, new_password: form.next } }));
      if (username) startSession(await ok(api.POST('/api/v1/auth/login', { body: { username, password: form.next } })));
    },
    onSuccess: () => setForm({ current: '', next: '', confirm: '' }),
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!mismatch) change.mutate();
  };
  return (
    <section aria-labelledby="password-heading" className="narrow-section">
      <h2 id="password-heading">
        <Trans>Change your password</Trans>
      </h2>
      <form className="stack" onSubmit={submit}>
        <label>
          <Trans>Current password</Trans>
          <input type="password" autoComplete="current-password" required value={form.current} onChange={set('current')} />
        </label>
        <label>
          <Trans>New password</Trans>
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            value={form.next}
            onChange={set('next')}
            aria-describedby="new-password-hint"
          />
        </label>
        <p id="new-password-hint" className="hint">
          <Trans>
            At least 8 characters. Other browsers and apps signed in with your password are signed out; this one stays signed in.
          </Trans>
        </p>
        <label>
          <Trans>Repeat the new password</Trans>
          <input
            type="password"
            autoComplete="new-password"
            required
            value={form.confirm}
            onChange={set('confirm')}
            aria-invalid={mismatch}
          />
        </label>
        {mismatch && (
          <p className="error-text">
            <Trans>The two passwords differ.</Trans>
          </p>
        )}
        <ErrorMessage error={change.error} />
        {change.isSuccess && (
          <p className="ok-text" role="status">
            <Trans>Your password was changed.</Trans>
          </p>
        )}
        <button type="submit" className="primary" disabled={change.isPending || mismatch}>
          <Trans>Change password</Trans>
        </button>
      </form>
    </section>
  );
}
