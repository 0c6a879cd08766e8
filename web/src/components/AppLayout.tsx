import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate, useRouter } from '@tanstack/react-router';
import { useEffect } from 'react';
import { api } from '../api/client';
import { staleKeysFor } from '../api/live';
import { queryKeys } from '../api/query-keys';
import { librariesQuery, meQuery, preferencesQuery, usePreference } from '../api/queries';
import { endSession, onSessionChange } from '../api/session';
import { followEventStream } from '../api/sse';
import { coversChanged } from './Cover';
import { HeaderSearch } from './HeaderSearch';
import { adminSectionsFor } from '../lib/admin-access';

/** Applies the `theme` preference; `system` follows the operating system through CSS. */
function useTheme() {
  const { data } = useQuery(preferencesQuery);
  const theme = data?.find((p) => p.key === 'theme')?.value;
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
    else delete root.dataset.theme;
  }, [theme]);
}

/** Entity events from the server make the matching cached lists stale, so open screens update by themselves. */
function useLiveUpdates() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const stream = followEventStream(
      '/api/v1/events/stream',
      (event) => {
        if (event.name === 'cover_updated') coversChanged();
        for (const queryKey of staleKeysFor(event.name)) void queryClient.invalidateQueries({ queryKey });
      },
      // After a reconnection (server restart) whatever changed meanwhile is refetched.
      () =>
        void queryClient.invalidateQueries({
          predicate: (q) => q.queryKey[0] !== queryKeys.me[0] && q.queryKey[0] !== queryKeys.setupStatus[0],
        }),
    );
    return () => stream.close();
  }, [queryClient]);
}

/** When the token expires or is revoked: back to sign-in, then back here. */
function useSessionExpiry() {
  const navigate = useNavigate();
  const router = useRouter();
  const queryClient = useQueryClient();
  useEffect(
    () =>
      onSessionChange((_session, reason) => {
        if (reason === 'signed-in') return;
        queryClient.clear();
        const here = router.state.location.href;
        void navigate({ to: '/sign-in', search: reason === 'expired' ? { redirect: here } : {} });
      }),
    [navigate, router, queryClient],
  );
}

/** "Libraries" opens the library chosen in Account → Preferences ("Library opened first"), else all of them. */
function LibrariesLink() {
  const preferred = usePreference<string | null>('default_library_id', null);
  const libraries = useQuery(librariesQuery);
  const library = preferred ? libraries.data?.data.find((l) => l.id === preferred) : undefined;
  return library ? (
    <Link to="/libraries/$libraryId" params={{ libraryId: library.id }}>
      Libraries
    </Link>
  ) : (
    <Link to="/libraries">Libraries</Link>
  );
}

export function AppLayout() {
  useTheme();
  useLiveUpdates();
  useSessionExpiry();
  const { data: me } = useQuery(meQuery);

  const signOut = async () => {
    await api.POST('/api/v1/auth/logout').catch(() => undefined);
    // Signed in through a provider that offers it: end the provider's session too (RP-initiated logout).
    const providerLogout = localStorage.getItem('colophon.endSessionUrl');
    localStorage.removeItem('colophon.endSessionUrl');
    endSession('signed-out');
    if (providerLogout) window.location.assign(providerLogout);
  };

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand" aria-label="Colophon home">
          <img src="/favicon.svg" alt="" width="24" height="24" />
          <span>Colophon</span>
        </Link>
        <nav aria-label="Main" className="main-nav">
          <Link to="/" activeOptions={{ exact: true }}>
            Home
          </Link>
          <LibrariesLink />
          <Link to="/collections">Collections</Link>
          <Link to="/read-lists">Read lists</Link>
          {/* Account and administration (shown by permission). */}
          {me && adminSectionsFor(me.permissions).length > 0 && <Link to="/admin">Administration</Link>}
        </nav>
        <HeaderSearch />
        <div className="header-end">
          {me && (
            <Link to="/account" className="account-link" aria-label={`${me.username}, your account`}>
              {me.username}
            </Link>
          )}
          <button type="button" className="link-button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
