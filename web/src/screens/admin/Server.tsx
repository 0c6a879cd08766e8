import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDuration } from '../../lib/charts';
import { formatBytes, plural } from '../../lib/format';

/** Health, a summary of the metrics, and thumbnail cleanup. */
export function ServerScreen() {
  const health = useQuery({ queryKey: queryKeys.health, queryFn: () => ok(api.GET('/health')), refetchInterval: 30_000 });
  const metrics = useQuery({ queryKey: queryKeys.metrics, queryFn: () => ok(api.GET('/api/v1/metrics')), refetchInterval: 30_000 });
  const cleanup = useMutation({ mutationFn: () => ok(api.POST('/api/v1/maintenance/cleanup-thumbnails')) });
  // Deleting files on the server is an administrator's; a maintainer sees the server's state without the button.
  const me = useQuery(meQuery);
  const canClean = me.data?.permissions.includes('system-admin') ?? false;
  const m = metrics.data;
  const slowest = m ? [...m.requests.by_route].sort((a, b) => b.p95_ms - a.p95_ms).slice(0, 5) : [];

  return (
    <section aria-labelledby="server-heading">
      <h2 id="server-heading">Server</h2>
      <ErrorMessage error={health.error ?? metrics.error} />
      {health.data && (
        <p className={`health ${health.data.status}`} role="status">
          {health.data.status === 'ok' ? 'Healthy' : 'Degraded'} · database {health.data.checks.database} · version {health.data.version} ·
          up {formatDuration(health.data.uptime_seconds)}
        </p>
      )}
      {m && (
        <>
          <dl className="stat-tiles">
            <div className="stat-tile">
              <dt>Catalog</dt>
              <dd>
                {plural(m.catalog.libraries, 'library', 'libraries')}, {plural(m.catalog.series, 'series', 'series')},{' '}
                {plural(m.catalog.books, 'book')}
              </dd>
            </div>
            <div className="stat-tile">
              <dt>Books with errors</dt>
              <dd>{m.catalog.books_with_errors > 0 ? <Link to="/admin/analysis-errors">{m.catalog.books_with_errors}</Link> : 0}</dd>
            </div>
            <div className="stat-tile">
              <dt>Memory (RSS)</dt>
              <dd>{formatBytes(m.process.memory.rss_bytes)}</dd>
            </div>
            <div className="stat-tile">
              <dt>Event loop delay p99</dt>
              <dd>{m.process.event_loop_delay_ms.p99.toFixed(1)} ms</dd>
            </div>
            <div className="stat-tile">
              <dt>Requests</dt>
              <dd>
                {m.requests.total.toLocaleString()}
                <span className="hint">
                  {' '}
                  (
                  {Object.entries(m.requests.by_status_class)
                    .map(([k, v]) => `${k}: ${v}`)
                    .join(', ')}
                  )
                </span>
              </dd>
            </div>
            <div className="stat-tile">
              <dt>Tasks</dt>
              <dd>
                {m.tasks.queue_depth} queued · {m.tasks.finished_last_hour} done, {m.tasks.failed_last_hour} failed in the last hour
              </dd>
            </div>
            <div className="stat-tile">
              <dt>Database</dt>
              <dd>
                {m.database.type} · {formatBytes(m.database.size_bytes)}
              </dd>
            </div>
            <div className="stat-tile">
              <dt>Image cache</dt>
              <dd>
                {plural(m.cache.files, 'file')} · {formatBytes(m.cache.size_bytes)}
                {m.cache.hit_ratio !== null ? ` · ${Math.round(m.cache.hit_ratio * 100)}% hits` : ''}
              </dd>
            </div>
            <div className="stat-tile">
              <dt>Live connections</dt>
              <dd>{m.sse_connections}</dd>
            </div>
          </dl>
          {slowest.length > 0 && (
            <>
              <h3>Slowest routes (p95)</h3>
              <div className="table-scroll">
                <table className="data-table">
                  <thead>
                    <tr>
                      <th scope="col">Route</th>
                      <th scope="col">Requests</th>
                      <th scope="col">Errors</th>
                      <th scope="col">p50</th>
                      <th scope="col">p95</th>
                    </tr>
                  </thead>
                  <tbody>
                    {slowest.map((r) => (
                      <tr key={r.route}>
                        <td>
                          <code>{r.route}</code>
                        </td>
                        <td>{r.count}</td>
                        <td>{r.errors}</td>
                        <td>{r.p50_ms.toFixed(1)} ms</td>
                        <td>{r.p95_ms.toFixed(1)} ms</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </>
      )}
      {canClean && (
        <>
          <h3>Thumbnail cleanup</h3>
          <p className="hint">
            Removes cached covers and resized pages of books that no longer exist. Books that are only missing for now keep theirs.
          </p>
          <button type="button" disabled={cleanup.isPending} onClick={() => cleanup.mutate()}>
            Clean up thumbnails
          </button>
          <ErrorMessage error={cleanup.error} />
          {cleanup.data && (
            <p role="status">
              Removed {plural(cleanup.data.files_removed, 'file')} ({formatBytes(cleanup.data.bytes_freed)}) for{' '}
              {plural(cleanup.data.orphaned_hashes, 'removed book')}; kept {cleanup.data.kept_hashes}.
            </p>
          )}
        </>
      )}
    </section>
  );
}
