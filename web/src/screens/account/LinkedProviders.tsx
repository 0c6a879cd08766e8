import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDateTime } from '../../lib/format';

const routeApi = getRouteApi('/app/account/sign-in');

/** The sign-in providers linked to this account (link, unlink), and how apps sign in instead. */
export function LinkedProvidersScreen() {
  const { t } = useLingui();
  const { oidc_linked, oidc_error } = routeApi.useSearch();
  const queryClient = useQueryClient();
  const providers = useQuery({ queryKey: ['oidc-providers'], queryFn: () => ok(api.GET('/api/v1/auth/oidc/providers')) });
  const links = useQuery({ queryKey: ['oidc-links'], queryFn: () => ok(api.GET('/api/v1/auth/oidc/links')) });
  const link = useMutation({
    mutationFn: (id: string) => ok(api.POST('/api/v1/auth/oidc/{id}/link', { params: { path: { id } } })),
    onSuccess: (answer) => window.location.assign(answer.url),
  });
  const unlink = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/auth/oidc/links/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['oidc-links'] }),
  });
  const linked = new Map((links.data ?? []).map((l) => [l.provider_id, l]));

  return (
    <section aria-labelledby="sign-in-heading">
      <h2 id="sign-in-heading">
        <Trans>Sign-in</Trans>
      </h2>
      {oidc_linked && (
        <p role="status">
          <Trans>Your account is now linked to {oidc_linked}.</Trans>
        </p>
      )}
      {oidc_error && (
        <p className="error-text" role="alert">
          {oidc_error}
        </p>
      )}
      <ErrorMessage error={providers.error ?? links.error ?? link.error ?? unlink.error} />
      {providers.data && providers.data.providers.length === 0 ? (
        <p className="empty">
          <Trans>This server has no sign-in provider: you sign in with your password.</Trans>
        </p>
      ) : (
        <ul className="settings-list">
          {providers.data?.providers.map((p) => {
            const { id, name } = p;
            const l = linked.get(id);
            const email = l?.email;
            const lastUsed = l?.last_login_at ? formatDateTime(l.last_login_at) : null;
            const state = !l
              ? t`Not linked.`
              : email && lastUsed
                ? t`Linked as ${email}, last used ${lastUsed}.`
                : email
                  ? t`Linked as ${email}.`
                  : lastUsed
                    ? t`Linked, last used ${lastUsed}.`
                    : t`Linked.`;
            return (
              <li key={id} className="setting-row" aria-label={name}>
                <div className="setting-text">
                  <strong>{name}</strong>
                  <span className="hint">{state}</span>
                </div>
                {l ? (
                  <button type="button" onClick={() => unlink.mutate(id)} disabled={unlink.isPending}>
                    <Trans>Unlink</Trans>
                  </button>
                ) : (
                  <button type="button" onClick={() => link.mutate(id)} disabled={link.isPending}>
                    <Trans>Link {name}</Trans>
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p className="hint">
        <Trans>
          Apps cannot use these sign-in providers: OPDS readers, KOReader, Mihon and other Komga apps sign in with an{' '}
          <Link to="/account/api-keys">API key</Link> (one per device, revocable), which keeps working whatever the sign-in settings.
        </Trans>
      </p>
    </section>
  );
}
