import { useQuery } from '@tanstack/react-query';
import { Link, Outlet } from '@tanstack/react-router';
import { meQuery } from '../../api/queries';
import '../../admin.css';

/**
 * The account area: tabs for preferences (AccountPreferences.tsx), password (ChangePassword.tsx), API keys
 * (ApiKeys.tsx), Kobo e-readers (KoboDevices.tsx) and reading statistics (AccountStats.tsx), each its own URL and its own file.
 */
export function AccountLayout() {
  const { data: me } = useQuery(meQuery);
  return (
    <div className="page section-page">
      <h1>Your account</h1>
      {me && (
        <p className="meta-line">
          {me.username} · {me.email} · {me.role}
        </p>
      )}
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
