import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, Outlet, useRouterState } from '@tanstack/react-router';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { adminSectionsFor } from '../../lib/admin-access';
import '../../admin.css';

/** The administration area: a menu of the sections this user may open; without any, a plain refusal. */
export function AdminLayout() {
  const me = useQuery(meQuery);
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  if (me.error) return <ErrorMessage error={me.error} />;
  if (me.isPending) return <p className="page">Loading…</p>;
  const sections = adminSectionsFor(me.data.permissions);
  if (sections.length === 0) {
    return (
      <div className="page narrow">
        <h1>Administration</h1>
        <p>Your account has no administration rights. Ask an administrator if you need to manage libraries or users.</p>
        <Link to="/">Go to the home page</Link>
      </div>
    );
  }
  const first = sections[0];
  if (first && (pathname === '/admin' || pathname === '/admin/')) return <Navigate to={first.path} replace />;
  return (
    <div className="page admin-page">
      <h1 className="visually-hidden">Administration</h1>
      <nav aria-label="Administration" className="section-tabs admin-tabs">
        {sections.map((s) => (
          <Link key={s.path} to={s.path}>
            {s.label}
          </Link>
        ))}
      </nav>
      <Outlet />
    </div>
  );
}
