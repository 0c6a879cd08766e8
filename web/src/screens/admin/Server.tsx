import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDuration } from '../../lib/charts';
import { formatBytes } from '../../lib/format';

/** Milliseconds with one decimal, as before in every language but with its decimal sign. */
const ONE_DECIMAL: Intl.NumberFormatOptions = { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false };

/** Health, a summary of the metrics, and thumbnail cleanup. */
export function ServerScreen() {
  const { t, i18n } = useLingui();
  const health = useQuery({ queryKey: queryKeys.health, queryFn: () => ok(api.GET('/health')), refetchInterval: 30_000 });
  const metrics = useQuery({ queryKey: queryKeys.metrics, queryFn: () => ok(api.GET('/api/v1/metrics')), refetchInterval: 30_000 });
  const cleanup = useMutation({ mutationFn: () => ok(api.POST('/api/v1/maintenance/cleanup-thumbnails')) });
  // Deleting files on the server is an administrator's; a maintainer sees the server's state without the button.
  const me = useQuery(meQuery);
  const canClean = me.data?.permissions.includes('system-admin') ?? false;
  const m = metrics.data;
  const slowest = m ? [...m.requests.by_route].sort((a, b) => b.p95_ms - a.p95_ms).slice(0, 5) : [];
  const ms = (value: number) => {
    const amount = i18n.number(value, ONE_DECIMAL);
    return t({ message: `${amount} ms`, comment: 'A duration in milliseconds (abbreviated unit)' });
  };
  const healthState = health.data?.status === 'ok' ? t`Healthy` : t`Degraded`;
  const database = health.data?.checks.database;
  const version = health.data?.version;
  const uptime = health.data ? formatDuration(health.data.uptime_seconds) : '';
  let catalog = '';
  let cacheFiles = '';
  let cacheHits = '';
  if (m) {
    const { libraries, series, books } = m.catalog;
    const librariesText = plural(libraries, { one: `${libraries} library`, other: `${libraries} libraries` });
    const seriesText = plural(series, { one: `${series} series`, other: `${series} series` });
    const booksText = plural(books, { one: `${books} book`, other: `${books} books` });
    catalog = `${librariesText}, ${seriesText}, ${booksText}`;
    const files = m.cache.files;
    cacheFiles = plural(files, { one: `${files} file`, other: `${files} files` });
    if (m.cache.hit_ratio !== null) {
      const ratio = i18n.number(m.cache.hit_ratio, { style: 'percent', maximumFractionDigits: 0 });
      cacheHits = t`${ratio} hits`;
    }
  }
  const queued = m?.tasks.queue_depth;
  const done = m?.tasks.finished_last_hour;
  const failed = m?.tasks.failed_last_hour;
  let cleaned: string | null = null;
  if (cleanup.data) {
    const { files_removed: removed, orphaned_hashes: orphans, kept_hashes: kept } = cleanup.data;
    const freed = formatBytes(cleanup.data.bytes_freed);
    const filesText = plural(removed, { one: `${removed} file`, other: `${removed} files` });
    const booksText = plural(orphans, { one: `${orphans} removed book`, other: `${orphans} removed books` });
    cleaned = t`Removed ${filesText} (${freed}) for ${booksText}; kept ${kept}.`;
  }

  return (
    <section aria-labelledby="server-heading">
      <h2 id="server-heading">
        <Trans>Server</Trans>
      </h2>
      <ErrorMessage error={health.error ?? metrics.error} />
      {health.data && (
        <p className={`health ${health.data.status}`} role="status">
          <Trans>
            {healthState} · database {database} · version {version} · up {uptime}
          </Trans>
        </p>
      )}
      {m && (
        <>
          <dl className="stat-tiles">
            <div className="stat-tile">
              <dt>
                <Trans>Catalog</Trans>
              </dt>
              <dd>{catalog}</dd>
            </div>
            <div className="stat-tile">
              <dt>
                <Trans>Books with errors</Trans>
              </dt>
              <dd>{m.catalog.books_with_errors > 0 ? <Link to="/admin/analysis-errors">{m.catalog.books_with_errors}</Link> : 0}</dd>
            </div>
            <div className="stat-tile">
              <dt>
                <Trans>Memory (RSS)</Trans>
              </dt>
              <dd>{formatBytes(m.process.memory.rss_bytes)}</dd>
            </div>
            <div className="stat-tile">
              <dt>
                <Trans>Event loop delay p99</Trans>
              </dt>
              <dd>{ms(m.process.event_loop_delay_ms.p99)}</dd>
            </div>
            <div className="stat-tile">
              <dt>
                <Trans>Requests</Trans>
              </dt>
              <dd>
                {i18n.number(m.requests.total)}
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
              <dt>
                <Trans>Tasks</Trans>
              </dt>
              <dd>
                <Trans>
                  {queued} queued · {done} done, {failed} failed in the last hour
                </Trans>
              </dd>
            </div>
            <div className="stat-tile">
              <dt>
                <Trans>Database</Trans>
              </dt>
              <dd>
                {m.database.type} · {formatBytes(m.database.size_bytes)}
              </dd>
            </div>
            <div className="stat-tile">
              <dt>
                <Trans>Image cache</Trans>
              </dt>
              <dd>
                {cacheFiles} · {formatBytes(m.cache.size_bytes)}
                {m.cache.hit_ratio !== null ? ` · ${cacheHits}` : ''}
              </dd>
            </div>
            <div className="stat-tile">
              <dt>
                <Trans>Live connections</Trans>
              </dt>
              <dd>{m.sse_connections}</dd>
            </div>
          </dl>
          {slowest.length > 0 && (
            <>
              <h3>
                <Trans>Slowest routes (p95)</Trans>
              </h3>
              <div className="table-scroll">
                <table className="data-table">
                  <thead>
                    <tr>
                      <th scope="col">
                        <Trans>Route</Trans>
                      </th>
                      <th scope="col">
                        <Trans>Requests</Trans>
                      </th>
                      <th scope="col">
                        <Trans>Errors</Trans>
                      </th>
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
                        <td>{ms(r.p50_ms)}</td>
                        <td>{ms(r.p95_ms)}</td>
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
          <h3>
            <Trans>Thumbnail cleanup</Trans>
          </h3>
          <p className="hint">
            <Trans>
              Removes cached covers and resized pages of books that no longer exist. Books that are only missing for now keep theirs.
            </Trans>
          </p>
          <button type="button" disabled={cleanup.isPending} onClick={() => cleanup.mutate()}>
            <Trans>Clean up thumbnails</Trans>
          </button>
          <ErrorMessage error={cleanup.error} />
          {cleaned !== null && <p role="status">{cleaned}</p>}
        </>
      )}
    </section>
  );
}
