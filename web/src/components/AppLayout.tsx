import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate, useRouter } from '@tanstack/react-router';
import { useEffect } from 'react';
import { Button, Dialog, DialogTrigger, Modal, ModalOverlay } from 'react-aria-components';
import { api } from '../api/client';
import { staleKeysFor } from '../api/live';
import { queryKeys } from '../api/query-keys';
import { librariesQuery, meQuery, preferencesQuery, usePreference } from '../api/queries';
import { endSession, onSessionChange } from '../api/session';
import { followEventStream } from '../api/sse';
import { coversChanged } from './Cover';
import { HeaderSearch } from './HeaderSearch';
import { adminSectionsFor } from '../lib/admin-access';
import { useAccountLanguage } from './LanguagePicker';

/** The app's name, the same in every language. */
const BRAND = 'Colophon';

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
function LibrariesLink({ onClick }: { onClick?: () => void }) {
  const preferred = usePreference<string | null>('default_library_id', null);
  const libraries = useQuery(librariesQuery);
  const library = preferred ? libraries.data?.data.find((l) => l.id === preferred) : undefined;
  return library ? (
    <Link to="/libraries/$libraryId" params={{ libraryId: library.id }} onClick={onClick}>
      <Trans>Libraries</Trans>
    </Link>
  ) : (
    <Link to="/libraries" onClick={onClick}>
      <Trans>Libraries</Trans>
    </Link>
  );
}

/** The main places; `onClick`: the phone's menu closes when one is chosen. */
function MainLinks({ showAdmin, onClick }: { showAdmin: boolean; onClick?: () => void }) {
  return (
    <>
      <Link to="/" activeOptions={{ exact: true }} onClick={onClick}>
        <Trans>Home</Trans>
      </Link>
      <LibrariesLink onClick={onClick} />
      <Link to="/collections" onClick={onClick}>
        <Trans>Collections</Trans>
      </Link>
      <Link to="/read-lists" onClick={onClick}>
        <Trans>Read lists</Trans>
      </Link>
      <Link to="/downloads" onClick={onClick}>
        <Trans>Downloads</Trans>
      </Link>
      {/* Account and administration (shown by permission). */}
      {showAdmin && (
        <Link to="/admin" onClick={onClick}>
          <Trans>Administration</Trans>
        </Link>
      )}
    </>
  );
}

export function AppLayout() {
  const { t } = useLingui();
  useTheme();
  useAccountLanguage();
  useLiveUpdates();
  useSessionExpiry();
  const { data: me } = useQuery(meQuery);
  const showAdmin = !!me && adminSectionsFor(me.permissions).length > 0;
  const username = me?.username;
  const accountLabel = t`${username}, your account`;
  const mainNavigation = t({ message: 'Main', context: 'navigation' });

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
        <Trans>Skip to content</Trans>
      </a>
      <header className="app-header">
        <Link to="/" className="brand" aria-label={t`Colophon home`}>
          <img src="/favicon.svg" alt="" width="24" height="24" />
          <span>{BRAND}</span>
        </Link>
        <nav aria-label={mainNavigation} className="main-nav">
          <MainLinks showAdmin={showAdmin} />
        </nav>
        <HeaderSearch />
        <div className="header-end">
          {me && (
            <Link to="/account" className="account-link" aria-label={accountLabel}>
              {me.username}
            </Link>
          )}
          <button type="button" className="link-button" onClick={() => void signOut()}>
            <Trans>Sign out</Trans>
          </button>
        </div>
        {/* On a phone the places, the account and Sign out are in a menu: nothing scrolls sideways or overlaps. */}
        <DialogTrigger>
          <Button className="menu-button" aria-label={t`Menu`}>
            <span className="menu-icon" aria-hidden="true" />
            <span className="menu-label">
              <Trans>Menu</Trans>
            </span>
          </Button>
          <ModalOverlay className="drawer-overlay" isDismissable>
            <Modal className="drawer">
              <Dialog className="drawer-dialog" aria-label={t`Menu`}>
                {({ close }) => (
                  <>
                    <div className="drawer-head">
                      <span className="drawer-title">{BRAND}</span>
                      <button type="button" className="small" onClick={close}>
                        <Trans>
                          Close<span className="visually-hidden"> the menu</span>
                        </Trans>
                      </button>
                    </div>
                    <nav aria-label={mainNavigation} className="drawer-nav">
                      <MainLinks showAdmin={showAdmin} onClick={close} />
                    </nav>
                    <div className="drawer-end">
                      {me && (
                        <Link to="/account" className="account-link" aria-label={accountLabel} onClick={close}>
                          <Trans>{username} · your account</Trans>
                        </Link>
                      )}
                      <button
                        type="button"
                        onClick={() => {
                          close();
                          void signOut();
                        }}
                      >
                        <Trans>Sign out</Trans>
                      </button>
                    </div>
                  </>
                )}
              </Dialog>
            </Modal>
          </ModalOverlay>
        </DialogTrigger>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
