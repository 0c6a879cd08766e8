import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDateTime } from '../../lib/format';

const routeApi = getRouteApi('/app/account/sign-in');

/** The sign-in providers linked to this account (link, unlink), and how apps sign in instead. */
export function LinkedProvidersScreen() {
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
      <h2 id="sign-in-heading">Sign-in</h2>
      {oidc_linked && <p role="status">Your account is now linked to {oidc_linked}.</p>}
      {oidc_error && (
        <p className="error-text" role="alert">
          {oidc_error}
        </p>
      )}
      <ErrorMessage error={providers.error ?? links.error ?? link.error ?? unlink.error} />
      {providers.data && providers.data.providers.length === 0 ? (
        <p className="empty">This server has no sign-in provider: you sign in with your password.</p>
      ) : (
        <ul className="settings-list">
          {providers.data?.providers.map((p) => {
            const l = linked.get(p.id);
            return (
              <li key={p.id} className="setting-row" aria-label={p.name}>
                <div className="setting-text">
                  <strong>{p.name}</strong>
                  <span className="hint">
                    {l
                      ? `Linked${l.email ? ` as ${l.email}` : ''}${l.last_login_at ? `, last used ${formatDateTime(l.last_login_at)}` : ''}.`
                      : 'Not linked.'}
                  </span>
                </div>
                {l ? (
                  <button type="button" onClick={() => unlink.mutate(p.id)} disabled={unlink.isPending}>
                    Unlink
                  </button>
                ) : (
                  <button type="button" onClick={() => link.mutate(p.id)} disabled={link.isPending}>
                    Link {p.name}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p className="hint">
        Apps cannot use these sign-in providers: OPDS readers, KOReader, Mihon and other Komga apps sign in with an{' '}
        <Link to="/account/api-keys">API key</Link> (one per device, revocable), which keeps working whatever the sign-in settings.
      </p>
    </section>
  );
}
