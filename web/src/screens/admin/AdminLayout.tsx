import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, Outlet, useRouterState } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { adminSectionsFor, type AdminPath } from '../../lib/admin-access';
import '../../admin.css';

/**
 * What the server says is wrong (a failed backup, a missing library folder, a full disk), above every section, so that
 * an administrator sees it on arrival; nothing when the server is healthy.
 */
function ServerProblems() {
  const health = useQuery({ queryKey: queryKeys.health, queryFn: () => ok(api.GET('/health')), refetchInterval: 60_000 });
  const reasons = health.data?.status === 'degraded' ? (health.data.reasons ?? []) : [];
  if (reasons.length === 0) return null;
  return (
    <div className="warning-note server-problems" role="status">
      <p>
        <Trans>The server needs attention:</Trans>
      </p>
      <ul>
        {reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      <Link to="/admin/server">
        <Trans>Server status</Trans>
      </Link>
    </div>
  );
}

/** Each section's name in the menu. */
export const SECTION_NAMES: Record<AdminPath, MessageDescriptor> = {
  '/admin/libraries': msg`Libraries`,
  '/admin/inbox': msg`Inbox`,
  '/admin/users': msg`Users`,
  '/admin/settings': msg`Settings`,
  '/admin/sign-in': msg`Sign-in`,
  '/admin/tasks': msg`Tasks`,
  '/admin/duplicates': msg`Duplicates`,
  '/admin/metadata-review': msg`Metadata review`,
  '/admin/metadata-sources': msg`Metadata sources`,
  '/admin/analysis-errors': msg`Analysis errors`,
  '/admin/backups': msg`Backups`,
  '/admin/server': msg`Server`,
};

/** The administration area: a menu of the sections this user may open; without any, a plain refusal. */
export function AdminLayout() {
  const { t, i18n } = useLingui();
  const me = useQuery(meQuery);
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  if (me.error) return <ErrorMessage error={me.error} />;
  if (me.isPending)
    return (
      <p className="page">
        <Trans>Loading…</Trans>
      </p>
    );
  const sections = adminSectionsFor(me.data.permissions);
  if (sections.length === 0) {
    return (
      <div className="page narrow">
        <h1>
          <Trans>Administration</Trans>
        </h1>
        <p>
          <Trans>Your account has no administration rights. Ask an administrator if you need to manage libraries or users.</Trans>
        </p>
        <Link to="/">
          <Trans>Go to the home page</Trans>
        </Link>
      </div>
    );
  }
  const first = sections[0];
  if (first && (pathname === '/admin' || pathname === '/admin/')) return <Navigate to={first.path} replace />;
  return (
    <div className="page admin-page">
      <h1 className="visually-hidden">
        <Trans>Administration</Trans>
      </h1>
      <nav aria-label={t`Administration`} className="section-tabs admin-tabs">
        {sections.map((s) => (
          <Link key={s.path} to={s.path}>
            {i18n._(SECTION_NAMES[s.path])}
          </Link>
        ))}
      </nav>
      {me.data.permissions.includes('system-admin') && <ServerProblems />}
      <Outlet />
    </div>
  );
}
