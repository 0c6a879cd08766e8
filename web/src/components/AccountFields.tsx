import { Trans } from '@lingui/react/macro';

export interface NewAccount {
  username: string;
  email: string;
  password: string;
}

/**
 * The fields of a new account (the server's NewAccount: a 2-character username, an e-mail, an 8-character
 * password), for the first administrator in the setup wizard and for a reader registering.
 */
export function AccountFields({ value, onChange }: { value: NewAccount; onChange(key: keyof NewAccount, text: string): void }) {
  return (
    <>
      <label>
        <Trans>Username</Trans>
        <input
          autoComplete="username"
          required
          minLength={2}
          maxLength={64}
          value={value.username}
          onChange={(e) => onChange('username', e.target.value)}
        />
      </label>
      <label>
        <Trans>E-mail</Trans>
        <input type="email" autoComplete="email" required value={value.email} onChange={(e) => onChange('email', e.target.value)} />
      </label>
      <label>
        <Trans>Password</Trans>
        <input
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={value.password}
          onChange={(e) => onChange('password', e.target.value)}
          aria-describedby="new-password-hint"
        />
      </label>
      <p id="new-password-hint" className="hint">
        <Trans>At least 8 characters.</Trans>
      </p>
    </>
  );
}
