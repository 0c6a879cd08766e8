import { msg } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { serverAddressesQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { CopyField } from '../account/NewApiKey';
import { ROLE_NAMES } from './users/roles';

type Provider = components['schemas']['OidcProvider'];
type Report = components['schemas']['OidcConnectionReport'];
type Role = Provider['default_role'];
const KEY = ['admin-oidc-providers'];
/** What a new provider asks for: OpenID Connect scope names, not words. */
const DEFAULT_SCOPES = 'openid profile email';
/** The syntax of the group → role field, shown as its placeholder: a group name and a role code. */
const ROLE_MAP_EXAMPLE = 'colophon-admin = admin';

interface Draft {
  id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string;
  response_mode: 'query' | 'form_post';
  provision: boolean;
  default_role: Role;
  match_email: boolean;
  groups_claim: string;
  role_map: string;
  library_map: string;
  allow_http: boolean;
  enabled: boolean;
}

const EMPTY: Draft = {
  id: '',
  name: '',
  issuer: '',
  client_id: '',
  client_secret: '',
  scopes: DEFAULT_SCOPES,
  response_mode: 'query',
  provision: false,
  default_role: 'reader',
  match_email: false,
  groups_claim: '',
  role_map: '',
  library_map: '',
  allow_http: false,
  enabled: false,
};

const draftOf = (p: Provider): Draft => ({
  ...p,
  client_secret: '',
  scopes: p.scopes.join(' '),
  groups_claim: p.groups_claim ?? '',
  role_map: Object.entries(p.role_map)
    .map(([group, role]) => `${group} = ${role}`)
    .join('\n'),
  library_map: Object.entries(p.library_map)
    .map(([group, libraries]) => `${group} = ${libraries.join(', ')}`)
    .join('\n'),
});

/** `group = role` lines → the role map (lines that name no role are left out). */
function roleMapOf(text: string): Record<string, Role> {
  const map: Record<string, Role> = {};
  for (const line of text.split('\n')) {
    const [group, role] = line.split('=').map((s) => s.trim());
    if (group && (role === 'admin' || role === 'maintainer' || role === 'reader')) map[group] = role;
  }
  return map;
}

/** `group = Library, Other library` lines (or `group = *`) → the library map. */
function libraryMapOf(text: string): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at < 0) continue;
    const group = line.slice(0, at).trim();
    const libraries = line
      .slice(at + 1)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (group && libraries.length) map[group] = libraries;
  }
  return map;
}

function bodyOf(d: Draft) {
  return {
    name: d.name,
    issuer: d.issuer,
    client_id: d.client_id,
    ...(d.client_secret ? { client_secret: d.client_secret } : {}),
    scopes: d.scopes.split(/\s+/).filter(Boolean),
    response_mode: d.response_mode,
    provision: d.provision,
    default_role: d.default_role,
    match_email: d.match_email,
    ...(d.groups_claim ? { groups_claim: d.groups_claim } : {}),
    role_map: roleMapOf(d.role_map),
    library_map: libraryMapOf(d.library_map),
    allow_http: d.allow_http,
    enabled: d.enabled,
  };
}

/** Sign-in providers (OpenID Connect): add, edit, test and remove them; changes apply without a restart. */
export function SignInProvidersScreen() {
  const { t } = useLingui();
  const providers = useQuery({ queryKey: KEY, queryFn: () => ok(api.GET('/api/v1/admin/oidc/providers')) });
  const addresses = useQuery(serverAddressesQuery);
  const [editing, setEditing] = useState<string | null>(null);
  const baseUrl = addresses.data?.base_url;
  return (
    <section aria-labelledby="oidc-heading">
      <h2 id="oidc-heading">
        <Trans>Sign-in providers</Trans>
      </h2>
      <p className="hint">
        <Trans>
          People sign in with your identity provider (Authentik, Authelia, Keycloak, Pocket ID, Zitadel, Google…) through OpenID Connect.
          Changes apply at once. To offer only these buttons on the login page, turn on “Password sign-in disabled” in Settings (apps keep
          their API keys, and administrators keep their password at /sign-in?local=1).
        </Trans>
      </p>
      {addresses.data && !addresses.data.public_url_set && (
        <div className="warning-note" role="note" aria-label={t`Public address not set`}>
          <p>
            {addresses.data.loopback ? (
              <Trans>
                <strong>
                  <code>server.public_url</code> is not set.
                </strong>{' '}
                The redirect URIs below are built from the address this browser used, <span className="mono">{baseUrl}</span>, which only
                works on this computer. Set <code>server.public_url</code> to the address people open Colophon at, then register the
                redirect URI it gives.
              </Trans>
            ) : (
              <Trans>
                <strong>
                  <code>server.public_url</code> is not set.
                </strong>{' '}
                The redirect URIs below are built from the address this browser used, <span className="mono">{baseUrl}</span>. Set{' '}
                <code>server.public_url</code> to the address people open Colophon at, then register the redirect URI it gives.
              </Trans>
            )}
          </p>
        </div>
      )}
      {addresses.data?.public_url_set && (
        <p className="hint">
          <Trans>
            Redirect URIs are built from <code>server.public_url</code>, <span className="mono">{baseUrl}</span>.
          </Trans>
        </p>
      )}
      <ErrorMessage error={providers.error ?? addresses.error} />
      {providers.isPending && (
        <p role="status">
          <Trans>Loading sign-in providers…</Trans>
        </p>
      )}
      {providers.data?.length === 0 && editing !== '' && (
        <p className="empty">
          <Trans>No sign-in provider yet: people sign in with their password. Add one to offer “Sign in with …”.</Trans>
        </p>
      )}
      <ul className="settings-list">
        {providers.data?.map((p) =>
          editing === p.id ? (
            <li key={p.id}>
              <ProviderForm provider={p} onDone={() => setEditing(null)} />
            </li>
          ) : (
            <ProviderRow key={p.id} provider={p} onEdit={() => setEditing(p.id)} />
          ),
        )}
      </ul>
      {editing === '' ? (
        <ProviderForm onDone={() => setEditing(null)} />
      ) : (
        <button type="button" className="primary add-provider" onClick={() => setEditing('')}>
          <Trans>Add a provider</Trans>
        </button>
      )}
    </section>
  );
}

function ProviderRow({ provider, onEdit }: { provider: Provider; onEdit: () => void }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const test = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/admin/oidc/providers/{id}/test', { params: { path: { id: provider.id } } })),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/admin/oidc/providers/{id}', { params: { path: { id: provider.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  const { name, issuer, client_id: clientId, response_mode: responseMode, post_logout_redirect_uri: signOutUri } = provider;
  return (
    <li className="setting-row" aria-label={provider.name}>
      <div className="setting-text">
        <strong>
          {provider.name}{' '}
          <span className={`state-badge ${provider.enabled ? 'on' : 'off'}`}>
            {provider.enabled ? <Trans context="provider state">Enabled</Trans> : <Trans context="provider state">Disabled</Trans>}
          </span>
        </strong>
        {!provider.enabled && (
          <span className="hint">
            <Trans>Not offered on the sign-in page until it is enabled (Edit → Enabled).</Trans>
          </span>
        )}
        <span className="hint">
          {provider.source === 'config' ? (
            <Trans>
              {issuer} · client {clientId} · {responseMode} · set in the configuration file (read-only here)
            </Trans>
          ) : (
            <Trans>
              {issuer} · client {clientId} · {responseMode}
            </Trans>
          )}
        </span>
        <CopyField label={t`Redirect URI for ${name}`} value={provider.redirect_uri} multiline />
        <span className="hint">
          <Trans>Register this exact redirect URI at the provider, and {signOutUri} for sign-out.</Trans>
        </span>
        {test.data && <ConnectionReport report={test.data} />}
        <ErrorMessage error={test.error ?? remove.error} />
      </div>
      <div className="inline">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          {test.isPending ? <Trans>Testing…</Trans> : <Trans>Test connection</Trans>}
        </button>
        {provider.source === 'admin' && (
          <>
            <button type="button" onClick={onEdit}>
              <Trans>Edit</Trans>
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(t`Remove ${name}? Accounts linked to it can no longer sign in with it.`)) remove.mutate();
              }}
            >
              <Trans>Remove</Trans>
            </button>
          </>
        )}
      </div>
    </li>
  );
}

const CHECK_LABEL = {
  discovery: msg({ message: 'Discovery', context: 'connection check' }),
  keys: msg({ message: 'Signing keys', context: 'connection check' }),
  client: msg({ message: 'Client', context: 'connection check' }),
};

/** The checks of a connection test, each with its mark and a word for it (the marks alone are not read out). */
function ConnectionReport({ report }: { report: Report }) {
  const { t, i18n } = useLingui();
  return (
    <div role="status" className="connection-result">
      <p className={report.ok ? 'ok' : 'error-text'}>
        <strong>{report.ok ? <Trans>Connection works.</Trans> : <Trans>Connection failed.</Trans>}</strong>
      </p>
      <ul className="connection-report" aria-label={t`Connection test`}>
        {report.checks.map((c) => {
          const known = CHECK_LABEL[c.name] as (typeof CHECK_LABEL)[keyof typeof CHECK_LABEL] | undefined;
          const check = known ? i18n._(known) : c.name;
          return (
            <li key={c.name} className={c.ok ? 'ok' : 'error-text'}>
              <span aria-hidden="true" className="check-mark">
                {c.ok ? '✓' : '✗'}
              </span>
              <span>
                <strong>{c.ok ? <Trans>{check}: passed</Trans> : <Trans>{check}: failed</Trans>}</strong> — {c.message}
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function ProviderForm({ provider, onDone }: { provider?: Provider; onDone: () => void }) {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const [d, setD] = useState<Draft>(provider ? draftOf(provider) : EMPTY);
  const formId = useId();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setD((old) => ({ ...old, [key]: value }));
  const save = useMutation({
    mutationFn: () =>
      provider
        ? ok(api.PUT('/api/v1/admin/oidc/providers/{id}', { params: { path: { id: provider.id } }, body: bodyOf(d) }))
        : ok(api.POST('/api/v1/admin/oidc/providers', { body: { id: d.id, ...bodyOf(d) } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: KEY });
      onDone();
    },
  });
  const tryIt = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/admin/oidc/providers/test', { body: { id: provider?.id ?? d.id, ...bodyOf(d) } })),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const text = (
    key: 'id' | 'name' | 'issuer' | 'client_id' | 'client_secret' | 'scopes' | 'groups_claim',
    label: string,
    hint?: string,
  ) => (
    <label>
      {label}
      <input
        name={key}
        value={d[key]}
        type={key === 'client_secret' ? 'password' : 'text'}
        autoComplete="off"
        onChange={(e) => set(key, e.target.value)}
        disabled={key === 'id' && provider !== undefined}
      />
      {hint && <span className="hint">{hint}</span>}
    </label>
  );
  // The server builds the redirect URI from server.public_url when set, else from the address this browser used.
  const base = useQuery(serverAddressesQuery).data?.base_url ?? window.location.origin;
  const redirectPreview = `${base.replace(/\/+$/, '')}/api/v1/auth/oidc/${d.id || '<id>'}/callback`;
  const providerName = provider?.name;
  const formName = provider ? t`Edit ${providerName}` : t`New sign-in provider`;
  const testHint =
    !d.issuer || !d.client_id
      ? t`Fill in the issuer URL and client ID to test.`
      : t`Checks these settings with the provider; saves nothing.`;
  const enabledHint = d.enabled
    ? t`People can sign in with this provider once it is saved.`
    : tryIt.data?.ok
      ? t`The test passed: turn on “Enabled” to offer it on the sign-in page.`
      : t`Saved disabled, it is kept but not offered: test the connection first, then enable it.`;
  return (
    <form className="card form-grid" onSubmit={submit} aria-label={formName}>
      {text('id', t`Id`, t`Lower-case letters, digits, - and _; part of the redirect URI.`)}
      {text('name', t`Name on the button`, t`Shown as “Sign in with <name>”.`)}
      {text(
        'issuer',
        t`Issuer URL`,
        t`The address the provider names as its issuer, e.g. https://auth.example.org/application/o/colophon/`,
      )}
      {text('client_id', t`Client ID`)}
      {text(
        'client_secret',
        t`Client secret`,
        provider?.client_secret_set ? t`Leave empty to keep the current secret.` : t`Empty for a public client.`,
      )}
      {text('scopes', t`Scopes`, t`Separated by spaces.`)}
      <label>
        <Trans>Response mode</Trans>
        <select value={d.response_mode} onChange={(e) => set('response_mode', e.target.value as Draft['response_mode'])}>
          <option value="query">{t`query (a redirect)`}</option>
          <option value="form_post">{t`form_post (a posted form)`}</option>
        </select>
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={d.provision} onChange={(e) => set('provision', e.target.checked)} />{' '}
        <Trans>Create accounts for new people</Trans>
      </label>
      <label>
        <Trans>Role of new accounts</Trans>
        <select value={d.default_role} onChange={(e) => set('default_role', e.target.value as Role)}>
          <option value="reader">{i18n._(ROLE_NAMES.reader)}</option>
          <option value="maintainer">{i18n._(ROLE_NAMES.maintainer)}</option>
          <option value="admin">{i18n._(ROLE_NAMES.admin)}</option>
        </select>
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={d.match_email} onChange={(e) => set('match_email', e.target.checked)} />{' '}
        <Trans>Link existing accounts by verified e-mail address</Trans>
      </label>
      {text('groups_claim', t`Groups claim`, t`E.g. groups; the role is set from it at every sign-in.`)}
      <label>
        <Trans>Group → role</Trans>
        <textarea value={d.role_map} rows={3} placeholder={ROLE_MAP_EXAMPLE} onChange={(e) => set('role_map', e.target.value)} />
      </label>
      <div className="field">
        <label htmlFor={`${formId}-library-map`}>
          <Trans>Group → libraries</Trans>
        </label>
        <textarea
          id={`${formId}-library-map`}
          value={d.library_map}
          rows={3}
          placeholder={t`kids = Children’s comics\nfamily = *`}
          aria-describedby={`${formId}-library-map-hint`}
          onChange={(e) => set('library_map', e.target.value)}
        />
        <span className="hint" id={`${formId}-library-map-hint`}>
          <Trans>
            Library names, separated by commas; * for every library. When set, each sign-in gives the person the libraries of their groups —
            none when no group is listed. Leave empty to set libraries on the Users page instead.
          </Trans>
        </span>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={d.allow_http} onChange={(e) => set('allow_http', e.target.checked)} />{' '}
        <Trans>Allow an http:// issuer (a provider on your own network)</Trans>
      </label>
      {!provider && (
        <div className="form-wide">
          <CopyField label={t`Redirect URI to register`} value={redirectPreview} multiline />
        </div>
      )}
      <div className="stack test-before-save">
        <div className="inline">
          <button type="button" onClick={() => tryIt.mutate()} disabled={tryIt.isPending || !d.issuer || !d.client_id}>
            {tryIt.isPending ? <Trans>Testing…</Trans> : <Trans>Test connection</Trans>}
          </button>
          <span className="hint">{testHint}</span>
        </div>
        {tryIt.data && <ConnectionReport report={tryIt.data} />}
        <ErrorMessage error={tryIt.error} />
      </div>
      <label className="checkbox enable-switch">
        <input type="checkbox" role="switch" checked={d.enabled} onChange={(e) => set('enabled', e.target.checked)} />{' '}
        <Trans>Enabled: offered on the sign-in page</Trans>
      </label>
      <p className="hint">{enabledHint}</p>
      <ErrorMessage error={save.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? <Trans>Saving…</Trans> : <Trans>Save</Trans>}
        </button>
        <button type="button" onClick={onDone}>
          <Trans>Cancel</Trans>
        </button>
      </div>
    </form>
  );
}
