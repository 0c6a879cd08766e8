import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, Outlet, redirect } from '@tanstack/react-router';
import { setupStatusQuery } from './api/queries';
import { getSession } from './api/session';
import { AppLayout } from './components/AppLayout';
import { NotFound, RouteError } from './components/ErrorView';
import { compactLibrarySearch, validateLibrarySearch, type LibrarySearch } from './lib/library-search';
import { AddressNotFound } from './lib/not-found';
import { SHELVES, type ShelfId } from './lib/shelves';
import { prefetchReader } from './reader/queries';

interface RouterContext {
  queryClient: QueryClient;
}

/**
 * The setup status; when the server cannot be reached (fetch's TypeError) and there is a session, setup is taken as
 * done: the app opens on what it has offline (issue 54).
 */
const signedInSetupStatus = (queryClient: QueryClient) =>
  queryClient.ensureQueryData(setupStatusQuery).catch((err: unknown) => {
    if (getSession() && err instanceof TypeError) return { setup_required: false };
    throw err;
  });

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  errorComponent: RouteError,
  notFoundComponent: NotFound,
});

const redirectSearch = (search: Record<string, unknown>): { redirect?: string } =>
  typeof search.redirect === 'string' && search.redirect.startsWith('/') ? { redirect: search.redirect } : {};

/** Setup first: while no administrator exists, every screen leads to the wizard. */
const setupRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/setup',
  validateSearch: (search: Record<string, unknown>): { step?: 'library' | 'scan'; library?: string } => ({
    ...(search.step === 'library' || search.step === 'scan' ? { step: search.step } : {}),
    ...(typeof search.library === 'string' ? { library: search.library } : {}),
  }),
  component: lazyRouteComponent(() => import('./screens/SetupWizard'), 'SetupWizard'),
  errorComponent: RouteError,
});

/** The sign-in page also takes a provider's answer (`oidc_code`, `oidc_error`) and `local=1` (show the password form). */
const signInSearch = (search: Record<string, unknown>): { redirect?: string; oidc_code?: string; oidc_error?: string; local?: string } => ({
  ...redirectSearch(search),
  ...(typeof search.oidc_code === 'string' ? { oidc_code: search.oidc_code } : {}),
  ...(typeof search.oidc_error === 'string' ? { oidc_error: search.oidc_error } : {}),
  ...(search.local !== undefined ? { local: String(search.local) } : {}),
});

const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in',
  validateSearch: signInSearch,
  beforeLoad: async ({ context }) => {
    const status = await context.queryClient.ensureQueryData(setupStatusQuery);
    if (status.setup_required) throw redirect({ to: '/setup' });
  },
  component: lazyRouteComponent(() => import('./screens/SignIn'), 'SignIn'),
  errorComponent: RouteError,
});

const registerRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/register',
  component: lazyRouteComponent(() => import('./screens/SignIn'), 'Register'),
  errorComponent: RouteError,
});

const verifyEmailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/verify-email',
  validateSearch: (search: Record<string, unknown>): { token?: string } =>
    typeof search.token === 'string' ? { token: search.token } : {},
  component: lazyRouteComponent(() => import('./screens/SignIn'), 'VerifyEmail'),
  errorComponent: RouteError,
});

/** Every screen below needs a signed-in user; without one, sign in and come back. */
const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: async ({ context, location }) => {
    const status = await signedInSetupStatus(context.queryClient);
    if (status.setup_required) throw redirect({ to: '/setup' });
    if (!getSession()) throw redirect({ to: '/sign-in', search: { redirect: location.href } });
  },
  component: AppLayout,
  errorComponent: RouteError,
});

const homeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  component: lazyRouteComponent(() => import('./screens/Home'), 'Home'),
  errorComponent: RouteError,
});

export const shelfRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/shelves/$shelf',
  params: {
    parse: (params: { shelf: string }): { shelf: ShelfId } => {
      if (!Object.hasOwn(SHELVES, params.shelf)) throw new AddressNotFound(`There is no shelf called "${params.shelf}"`);
      return { shelf: params.shelf as ShelfId };
    },
    stringify: (params: { shelf: ShelfId }) => ({ shelf: params.shelf }),
  },
  component: lazyRouteComponent(() => import('./screens/Home'), 'ShelfPage'),
  errorComponent: RouteError,
});

/** The grid's state in the URL: only what differs from the defaults (screens fill them in again). */
const librarySearch = (search: Record<string, unknown>): Partial<LibrarySearch> => compactLibrarySearch(validateLibrarySearch(search));

const librariesRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/libraries',
  validateSearch: librarySearch,
  component: lazyRouteComponent(() => import('./screens/LibraryGrid'), 'LibraryGrid'),
  errorComponent: RouteError,
});

const libraryRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/libraries/$libraryId',
  validateSearch: librarySearch,
  component: lazyRouteComponent(() => import('./screens/LibraryGrid'), 'LibraryGrid'),
  errorComponent: RouteError,
});

const searchRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/search',
  validateSearch: (search: Record<string, unknown>): { q: string } => ({ q: typeof search.q === 'string' ? search.q : '' }),
  component: lazyRouteComponent(() => import('./screens/SearchPage'), 'SearchPage'),
  errorComponent: RouteError,
});

const seriesRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/series/$seriesId',
  component: lazyRouteComponent(() => import('./screens/SeriesPage'), 'SeriesPage'),
  errorComponent: RouteError,
});

const bookRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/books/$bookId',
  component: lazyRouteComponent(() => import('./screens/BookPage'), 'BookPage'),
  errorComponent: RouteError,
});

const downloadsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/downloads',
  component: lazyRouteComponent(() => import('./screens/Downloads'), 'Downloads'),
  errorComponent: RouteError,
});

const collectionsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/collections',
  component: lazyRouteComponent(() => import('./screens/lists/CollectionsPage'), 'CollectionsPage'),
  errorComponent: RouteError,
});

const collectionRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/collections/$collectionId',
  component: lazyRouteComponent(() => import('./screens/lists/CollectionPage'), 'CollectionPage'),
  errorComponent: RouteError,
});

const readListsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/read-lists',
  component: lazyRouteComponent(() => import('./screens/lists/ReadListsPage'), 'ReadListsPage'),
  errorComponent: RouteError,
});

const readListRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/read-lists/$readListId',
  component: lazyRouteComponent(() => import('./screens/lists/ReadListPage'), 'ReadListPage'),
  errorComponent: RouteError,
});

/** The reader: full screen, outside the app's header; signed-in users only, like every screen of the app. */
export const readerRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/books/$bookId/read',
  // `readList`: opened from a read list, whose next book the end of the book offers (not the series').
  validateSearch: (search: Record<string, unknown>): { page?: number; readList?: string } => {
    const page = Number(search.page);
    return {
      ...(Number.isInteger(page) && page >= 1 ? { page } : {}),
      ...(typeof search.readList === 'string' && search.readList ? { readList: search.readList } : {}),
    };
  },
  beforeLoad: async ({ context, location }) => {
    const status = await signedInSetupStatus(context.queryClient);
    if (status.setup_required) throw redirect({ to: '/setup' });
    if (!getSession()) throw redirect({ to: '/sign-in', search: { redirect: location.href } });
  },
  // The reader's data is asked on hover or click together with its code, not once the code has arrived.
  loader: ({ context, params }) => prefetchReader(context.queryClient, params.bookId),
  component: lazyRouteComponent(() => import('./reader/ReaderScreen'), 'ReaderScreen'),
  errorComponent: RouteError,
});

// --- Account and administration (screens 8 and 9), each screen its own lazy chunk. ---
const accountRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/account',
  component: lazyRouteComponent(() => import('./screens/account/Account'), 'AccountLayout'),
  errorComponent: RouteError,
});
const accountPreferencesRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: '/',
  component: lazyRouteComponent(() => import('./screens/account/AccountPreferences'), 'PreferencesScreen'),
});
const accountPasswordRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: '/password',
  component: lazyRouteComponent(() => import('./screens/account/ChangePassword'), 'PasswordScreen'),
});
const accountKeysRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: '/api-keys',
  component: lazyRouteComponent(() => import('./screens/account/ApiKeys'), 'ApiKeysScreen'),
});
const accountKoboRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: '/kobo',
  component: lazyRouteComponent(() => import('./screens/account/KoboDevices'), 'KoboDevices'),
});
const accountSignInRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>): { oidc_linked?: string; oidc_error?: string } => ({
    ...(typeof search.oidc_linked === 'string' ? { oidc_linked: search.oidc_linked } : {}),
    ...(typeof search.oidc_error === 'string' ? { oidc_error: search.oidc_error } : {}),
  }),
  component: lazyRouteComponent(() => import('./screens/account/LinkedProviders'), 'LinkedProvidersScreen'),
});
const accountStatsRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: '/stats',
  component: lazyRouteComponent(() => import('./screens/account/AccountStats'), 'StatsScreen'),
});

const adminRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/admin',
  component: lazyRouteComponent(() => import('./screens/admin/AdminLayout'), 'AdminLayout'),
  errorComponent: RouteError,
});
const adminIndexRoute = createRoute({ getParentRoute: () => adminRoute, path: '/', component: () => null });
const adminLibrariesRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/libraries',
  component: lazyRouteComponent(() => import('./screens/admin/Libraries'), 'LibrariesScreen'),
});
const adminInboxRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/inbox',
  component: lazyRouteComponent(() => import('./screens/admin/inbox/InboxScreen'), 'InboxScreen'),
});
const adminUsersRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/users',
  component: lazyRouteComponent(() => import('./screens/admin/Users'), 'UsersScreen'),
});
const adminSettingsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('./screens/admin/Settings'), 'SettingsScreen'),
});
const adminTasksRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/tasks',
  component: lazyRouteComponent(() => import('./screens/admin/Tasks'), 'TasksScreen'),
});
const adminDuplicatesRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/duplicates',
  component: lazyRouteComponent(() => import('./screens/admin/Duplicates'), 'DuplicatesScreen'),
});
const adminReviewRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/metadata-review',
  component: lazyRouteComponent(() => import('./screens/admin/MetadataReview'), 'MetadataReviewScreen'),
});
const adminSourcesRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/metadata-sources',
  component: lazyRouteComponent(() => import('./screens/admin/MetadataSources'), 'MetadataSourcesScreen'),
});
const adminBackupsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/backups',
  component: lazyRouteComponent(() => import('./screens/admin/Backups'), 'BackupsScreen'),
});
const adminErrorsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/analysis-errors',
  component: lazyRouteComponent(() => import('./screens/admin/AnalysisErrors'), 'AnalysisErrorsScreen'),
});
const adminSignInRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/sign-in',
  component: lazyRouteComponent(() => import('./screens/admin/SignInProviders'), 'SignInProvidersScreen'),
});
const adminServerRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/server',
  component: lazyRouteComponent(() => import('./screens/admin/Server'), 'ServerScreen'),
});
const accountAndAdminRoutes = [
  accountRoute.addChildren([
    accountPreferencesRoute,
    accountPasswordRoute,
    accountKeysRoute,
    accountKoboRoute,
    accountSignInRoute,
    accountStatsRoute,
  ]),
  adminRoute.addChildren([
    adminInboxRoute,
    adminIndexRoute,
    adminLibrariesRoute,
    adminUsersRoute,
    adminSettingsRoute,
    adminTasksRoute,
    adminDuplicatesRoute,
    adminReviewRoute,
    adminSourcesRoute,
    adminErrorsRoute,
    adminBackupsRoute,
    adminServerRoute,
    adminSignInRoute,
  ]),
];
// --- end of account and administration ---

export const routeTree = rootRoute.addChildren([
  setupRoute,
  signInRoute,
  registerRoute,
  verifyEmailRoute,
  readerRoute,
  appRoute.addChildren([
    homeRoute,
    shelfRoute,
    librariesRoute,
    libraryRoute,
    searchRoute,
    downloadsRoute,
    seriesRoute,
    bookRoute,
    collectionsRoute,
    collectionRoute,
    readListsRoute,
    readListRoute,
    ...accountAndAdminRoutes,
  ]),
]);

export function createAppRouter(queryClient: QueryClient) {
  const router = createRouter({
    routeTree,
    context: { queryClient },
    defaultPreload: 'intent',
    defaultErrorComponent: RouteError,
    defaultNotFoundComponent: NotFound,
    scrollRestoration: true,
  });
  // Every screen's path, read by the accessibility test that visits them all (web/e2e/a11y-routes.spec.ts): a new
  // screen is covered without editing the test.
  (globalThis as { colophonRoutes?: string[] }).colophonRoutes = Object.keys(router.routesByPath);
  return router;
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
