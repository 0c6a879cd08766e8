import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, Outlet } from '@tanstack/react-router';
import { authHeaders, toApiError } from '../../api/client';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import '../../admin.css';

/**
 * The account area: tabs for preferences (AccountPreferences.tsx), password (ChangePassword.tsx), API keys
 * (ApiKeys.tsx), Kobo e-readers (KoboDevices.tsx) and reading statistics (AccountStats.tsx), each its own URL and its own file.
 */
/** Account → Export my data: the JSON file of GET /me/export, saved by the browser. */
async function exportMyData(): Promise<void> {
  const response = await fetch('/api/v1/me/export', { headers: authHeaders() });
  if (!response.ok) throw await toApiError(response, await response.json().catch(() => null));
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'colophon-export.json';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function AccountLayout() {
  const { data: me } = useQuery(meQuery);
  const exported = useMutation({ mutationFn: exportMyData });
  return (
    <div className="page section-page">
      <h1>Your account</h1>
      {me && (
        <p className="meta-line">
          {me.username} · {me.email} · {me.role}{' '}
          <button type="button" className="small" disabled={exported.isPending} onClick={() => exported.mutate()}>
            Export my data
          </button>
        </p>
      )}
      {exported.isSuccess && (
        <p className="hint" role="status">
          Your reading positions and history, lists, want-to-read and preferences were saved as a JSON file.
        </p>
      )}
      <ErrorMessage error={exported.error} />
      <nav aria-label="Account" className="section-tabs">
        <Link to="/account" activeOptions={{ exact: true }}>
          Preferences
        </Link>
        <Link to="/account/password">Password</Link>
        <Link to="/account/api-keys">API keys</Link>
        <Link to="/account/kobo">Kobo e-readers</Link>
        <Link to="/account/sign-in">Sign-in</Link>
        <Link to="/account/stats">Reading statistics</Link>
      </nav>
      <Outlet />
    </div>
  );
}
