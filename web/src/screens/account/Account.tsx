import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, Outlet } from '@tanstack/react-router';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { saveDownload } from '../../lib/save-download';
import '../../admin.css';

/**
 * The account area: tabs for preferences (AccountPreferences.tsx), password (ChangePassword.tsx), API keys
 * (ApiKeys.tsx), Kobo e-readers (KoboDevices.tsx) and reading statistics (AccountStats.tsx), each its own URL and its own file.
 */
export function AccountLayout() {
  const { t } = useLingui();
  const { data: me } = useQuery(meQuery);
  // Account → Export my data: the JSON file of GET /me/export.
  const exported = useMutation({ mutationFn: () => saveDownload('/api/v1/me/export', 'colophon-export.json') });
  return (
    <div className="page section-page">
      <h1>
        <Trans>Your account</Trans>
      </h1>
      {me && (
        <p className="meta-line">
          {me.username} · {me.email} · {me.role}{' '}
          <button type="button" className="small" disabled={exported.isPending} onClick={() => exported.mutate()}>
            <Trans>Export my data</Trans>
          </button>
        </p>
      )}
      {exported.isSuccess && (
        <p className="hint" role="status">
          <Trans>Your reading positions and history, lists, want-to-read and preferences were saved as a JSON file.</Trans>
        </p>
      )}
      <ErrorMessage error={exported.error} />
      <nav aria-label={t`Account`} className="section-tabs">
        <Link to="/account" activeOptions={{ exact: true }}>
          <Trans>Preferences</Trans>
        </Link>
        <Link to="/account/password">
          <Trans>Password</Trans>
        </Link>
        <Link to="/account/api-keys">
          <Trans>API keys</Trans>
        </Link>
        <Link to="/account/kobo">
          <Trans>Kobo e-readers</Trans>
        </Link>
        <Link to="/account/sign-in">
          <Trans>Sign-in</Trans>
        </Link>
        <Link to="/account/stats">
          <Trans>Reading statistics</Trans>
        </Link>
      </nav>
      <Outlet />
    </div>
  );
}
