import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, ok } from '../api/client';
import { setupStatusQuery } from '../api/queries';
import { sessionEnded, startSession } from '../api/session';
import { AccountFields } from '../components/AccountFields';
import { ErrorMessage } from '../components/ErrorView';
import { LanguagePicker } from '../components/LanguagePicker';
import { Trans } from '@lingui/react/macro';

const signInApi = getRouteApi('/sign-in');
const verifyApi = getRouteApi('/verify-email');

/** 429 answers name the wait; the button stays disabled and counts down until it is over. */
function useRetryCountdown(error: unknown): number {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (!(error instanceof ApiError) || error.status !== 429 || !error.retryAfterSeconds) return;
    const until = Date.now() + error.retryAfterSeconds * 1000;
    const tick = () => setLeft(Math.max(0, Math.ceil((until - Date.now()) / 1000)));
    tick();
    const timer = setInterval(tick, 500);
    return () => clearInterval(timer);
  }, [error]);
  return left;
}

/** Where signing out also ends the provider's session (RP-initiated logout), kept beside the session. */
export const END_SESSION_KEY = 'colophon.endSessionUrl';

/** The provider's one-time code (after its callback), exchanged once for the session, the same as a password sign-in's. */
function useProviderCode(code: string | undefined) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const sent = useRef(false);
  const exchange = useMutation({
    mutationFn: (c: string) => ok(api.POST('/api/v1/auth/oidc/exchange', { body: { code: c } })),
    onSuccess: async (response) => {
      queryClient.clear();
      startSession(response);
      if (response.end_session_url) localStorage.setItem(END_SESSION_KEY, response.end_session_url);
      else localStorage.removeItem(END_SESSION_KEY);
      await navigate({ href: response.return_to, replace: true });
    },
  });
  useEffect(() => {
    if (code && !sent.current) {
      sent.current = true;
      exchange.mutate(code);
    }
  }, [code, exchange]);
  return exchange;
}

/**
 * Behind an authenticating proxy (docs/sign-in.md), the proxy has signed the person in already: asked once on
 * load; any answer but 200 (the usual case: no proxy sign-in configured) leaves the usual screen, silently.
 */
function useProxySession(wanted: boolean, redirect: string | undefined) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const sent = useRef(false);
  const session = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/auth/proxy-session')),
    onSuccess: async (response) => {
      queryClient.clear();
      startSession(response);
      localStorage.removeItem(END_SESSION_KEY);
      await navigate({ href: redirect ?? '/', replace: true });
    },
  });
  useEffect(() => {
    if (wanted && !sent.current) {
      sent.current = true;
      session.mutate();
    }
  }, [wanted, session]);
  return { settled: !wanted || session.isError };
}

export function SignIn() {
  const { redirect, oidc_code, oidc_error, local } = signInApi.useSearch();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const registrationOpen = useQuery(setupStatusQuery).data?.registration_enabled === true;
  const providers = useQuery({ queryKey: ['oidc-providers'], queryFn: () => ok(api.GET('/api/v1/auth/oidc/providers')) });
  const exchange = useProviderCode(oidc_code);
  // `?local=1` (the password form on request) skips it, so a person can still choose another account.
  const proxy = useProxySession(!oidc_code && local === undefined, redirect);
  const list = providers.data?.providers ?? [];
  const passwordForm = providers.data ? providers.data.password_sign_in || local !== undefined : true;
  const only = list.length === 1 && providers.data?.password_sign_in === false ? list[0] : undefined;
  const startUrl = (id: string) =>
    `/api/v1/auth/oidc/${encodeURIComponent(id)}/start${redirect ? `?return_to=${encodeURIComponent(redirect)}` : ''}`;
  // One provider and no password form: go straight to it, unless it just failed or the form was asked for.
  const autoStart = only && local === undefined && !oidc_error && !oidc_code && proxy.settled ? startUrl(only.id) : undefined;
  useEffect(() => {
    if (autoStart) window.location.assign(autoStart);
  }, [autoStart]);
  const login = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/auth/login', { body: { username, password } })),
    onSuccess: async (response) => {
      queryClient.clear();
      startSession(response);
      localStorage.removeItem(END_SESSION_KEY);
      await navigate({ href: redirect ?? '/', replace: true });
    },
  });
  const wait = useRetryCountdown(login.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };

  return (
    <div className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">
          <Trans>Sign in to Colophon</Trans>
        </h1>
        {/* Only after a session really ended: a first visit is sent here with a redirect too. */}
        {redirect && sessionEnded() && (
          <p className="hint">
            <Trans>Your session ended. Sign in to continue where you were.</Trans>
          </p>
        )}
        {oidc_error && (
          <p className="error-text" role="alert">
            {oidc_error}
          </p>
        )}
        {oidc_code && exchange.isPending && (
          <p role="status">
            <Trans>Signing you in…</Trans>
          </p>
        )}
        <ErrorMessage error={exchange.error} />
        {list.length > 0 && (
          <div className="provider-buttons">
            {list.map(({ id, name }) => (
              <a key={id} className="button" href={startUrl(id)}>
                <Trans>Sign in with {name}</Trans>
              </a>
            ))}
          </div>
        )}
        {passwordForm && (
          <>
            <label>
              <Trans>Username or e-mail</Trans>
              <input name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
            </label>
            <label>
              <Trans>Password</Trans>
              <input
                name="password"
                type="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </label>
            <ErrorMessage error={login.error} />
            {wait > 0 && (
              <p className="hint">
                <Trans>You can try again in {wait} s.</Trans>
              </p>
            )}
            <button type="submit" className="primary" disabled={login.isPending || wait > 0}>
              {login.isPending ? <Trans>Signing in…</Trans> : <Trans>Sign in</Trans>}
            </button>
          </>
        )}
        {registrationOpen ? (
          <p className="hint">
            <Trans>
              No account? <Link to="/register">Create one</Link>
            </Trans>
          </p>
        ) : (
          <p className="hint">
            <Trans>No account? Ask the administrator of this server for one.</Trans>
          </p>
        )}
        <LanguagePicker signedIn={false} />
      </form>
    </div>
  );
}

export function Register() {
  const [form, setForm] = useState({ username: '', email: '', password: '' });
  const status = useQuery(setupStatusQuery).data;
  const register = useMutation({ mutationFn: () => ok(api.POST('/api/v1/auth/register', { body: form })) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    register.mutate();
  };

  if (register.data) {
    const { email, username } = register.data.user;
    return (
      <div className="auth-page">
        <div className="card auth-card" role="status">
          <h1>
            <Trans>Account created</Trans>
          </h1>
          {register.data.verification_required ? (
            <p>
              <Trans>We sent a link to {email}. Open it to confirm your address, then sign in.</Trans>
            </p>
          ) : (
            <p>
              <Trans>You can sign in now as {username}.</Trans>
            </p>
          )}
          <Link to="/sign-in" className="button primary">
            <Trans>Sign in</Trans>
          </Link>
        </div>
      </div>
    );
  }
  return (
    <div className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="register-title">
        <h1 id="register-title">
          <Trans>Create an account</Trans>
        </h1>
        {status?.registration_enabled === false && (
          <p className="hint">
            <Trans>This server does not take new accounts at the moment: ask its administrator for one.</Trans>
          </p>
        )}
        <AccountFields value={form} onChange={(key, text) => setForm((f) => ({ ...f, [key]: text }))} />
        <ErrorMessage error={register.error} />
        <button type="submit" className="primary" disabled={register.isPending}>
          <Trans>Create account</Trans>
        </button>
        <p className="hint">
          <Trans>
            Already registered? <Link to="/sign-in">Sign in</Link>
          </Trans>
        </p>
      </form>
    </div>
  );
}

export function VerifyEmail() {
  const { token } = verifyApi.useSearch();
  const verify = useMutation({ mutationFn: (t: string) => ok(api.POST('/api/v1/auth/verify-email', { body: { token: t } })) });
  const sent = useRef(false);
  useEffect(() => {
    if (token && !sent.current) {
      sent.current = true;
      verify.mutate(token);
    }
  }, [token, verify]);

  return (
    <div className="auth-page">
      <div className="card auth-card" role="status">
        <h1>
          <Trans>E-mail verification</Trans>
        </h1>
        {!token && (
          <p>
            <Trans>This link has no verification token. Open the link from the e-mail again, or ask for a new one after signing in.</Trans>
          </p>
        )}
        {verify.isPending && (
          <p>
            <Trans>Checking your link…</Trans>
          </p>
        )}
        {verify.isSuccess && (
          <p>
            <Trans>Your e-mail address is confirmed. You can sign in now.</Trans>
          </p>
        )}
        <ErrorMessage error={verify.error} />
        <Link to="/sign-in" className="button primary">
          <Trans>Sign in</Trans>
        </Link>
      </div>
    </div>
  );
}
