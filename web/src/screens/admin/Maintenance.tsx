import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { meQuery } from '../../api/queries';
import { Cover } from '../../components/Cover';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDuration } from '../../lib/charts';
import { formatBytes, formatDate, plural } from '../../lib/format';

/** Duplicate groups: books with the same content, series that look like the same work; each with covers. */
export function DuplicatesScreen() {
  const queryClient = useQueryClient();
  const books = useQuery({
    queryKey: ['duplicates', 'books'],
    queryFn: () => ok(api.GET('/api/v1/duplicates', { params: { query: { pageSize: 100 } } })),
  });
  const series = useQuery({
    queryKey: ['duplicates', 'series'],
    queryFn: () => ok(api.GET('/api/v1/duplicates/series', { params: { query: { pageSize: 100 } } })),
  });
  const detect = useMutation({ mutationFn: () => ok(api.POST('/api/v1/duplicates/scan')) });
  const dismissBooks = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/duplicates/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['duplicates'] }),
  });
  const dismissSeries = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/duplicates/series/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['duplicates'] }),
  });
  const bookGroups = books.data?.data ?? [];
  const seriesGroups = series.data?.data ?? [];

  return (
    <section aria-labelledby="dupes-heading">
      <div className="section-head">
        <h2 id="dupes-heading">Duplicates</h2>
        <button type="button" className="primary" disabled={detect.isPending} onClick={() => detect.mutate()}>
          Look for duplicates now
        </button>
      </div>
      {detect.isSuccess && (
        <p className="hint" role="status">
          Duplicate detection started — follow it under Tasks; refresh this page when it has finished.
        </p>
      )}
      <p className="hint">
        Dismissing a group only forgets it: no file is touched, and the next detection finds it again if the duplicates remain.
      </p>
      <ErrorMessage error={books.error ?? series.error ?? detect.error ?? dismissBooks.error ?? dismissSeries.error} />

      <h3>Same book, several files ({bookGroups.length})</h3>
      {books.isPending ? (
        <p>Loading…</p>
      ) : !books.data ? null : bookGroups.length === 0 ? (
        <p className="empty">No duplicate books found. Run a detection after adding files to check again.</p>
      ) : (
        <ul className="dupe-groups">
          {bookGroups.map((g) => (
            <li key={g.id} className="card dupe-group">
              <div className="section-head">
                <span>
                  {plural(g.book_count, 'copy', 'copies')} · {formatBytes(g.total_size)} in all
                </span>
                <button type="button" className="small" onClick={() => dismissBooks.mutate(g.id)}>
                  Dismiss
                </button>
              </div>
              <ul className="dupe-members">
                {g.books.map((b) => (
                  <li key={b.book_id}>
                    <Cover src={`/api/v1/books/${b.book_id}/thumbnail`} alt={`Cover of ${b.title}`} className="dupe-cover" />
                    <div>
                      <Link to="/books/$bookId" params={{ bookId: b.book_id }}>
                        {b.title}
                      </Link>
                      <span className="hint">
                        {b.series.name} · {b.library.name} · {formatBytes(b.size)}
                      </span>
                      <code className="hint path">{b.path}</code>
                    </div>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}

      <h3>Possibly the same series ({seriesGroups.length})</h3>
      {series.isPending ? (
        <p>Loading…</p>
      ) : !series.data ? null : seriesGroups.length === 0 ? (
        <p className="empty">
          No duplicate series found. Run a detection after a scan to check again; series matched by title or by an external id appear here.
        </p>
      ) : (
        <ul className="dupe-groups">
          {seriesGroups.map((g) => (
            <li key={g.id} className="card dupe-group">
              <div className="section-head">
                <span>
                  {g.confidence === 'high' ? 'Same upstream record' : 'Same title'} <code>{g.match_key}</code>
                </span>
                <button type="button" className="small" onClick={() => dismissSeries.mutate(g.id)}>
                  Dismiss
                </button>
              </div>
              <ul className="dupe-members">
                {g.series.map((s) => (
                  <li key={s.series_id}>
                    <Cover src={`/api/v1/series/${s.series_id}/thumbnail`} alt={`Cover of ${s.name}`} className="dupe-cover" />
                    <div>
                      <Link to="/series/$seriesId" params={{ seriesId: s.series_id }}>
                        {s.name}
                      </Link>
                      <span className="hint">
                        {s.library.name} · {plural(s.book_count, 'book')} · updated {formatDate(s.last_updated)}
                      </span>
                    </div>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Books whose file could not be read: the error, where the file is, and a way to try again. */
export function AnalysisErrorsScreen() {
  const queryClient = useQueryClient();
  const books = useQuery({
    queryKey: ['books', 'analysis-errors'],
    queryFn: () =>
      ok(
        api.POST('/api/v1/books/list', {
          params: { query: { pageSize: 200, sort: 'title,asc' } },
          body: { condition: { hasError: { operator: 'is', value: true } } },
        }),
      ),
  });
  const analyze = useMutation({
    mutationFn: (id: string) => ok(api.POST('/api/v1/books/{id}/analyze', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['books', 'analysis-errors'] }),
  });
  const list = books.data?.data ?? [];
  return (
    <section aria-labelledby="errors-heading">
      <h2 id="errors-heading">Books with analysis errors</h2>
      <p className="hint">
        These files were found but could not be read (damaged, encrypted or of an unknown kind). Fix or replace the file, then analyse it
        again.
      </p>
      <ErrorMessage error={books.error ?? analyze.error} />
      {analyze.isSuccess && (
        <p className="hint" role="status">
          Analysis queued — the book leaves this list once it reads without error.
        </p>
      )}
      {books.isPending ? (
        <p>Loading…</p>
      ) : !books.data ? null : list.length === 0 ? (
        <p className="empty">No analysis errors — every file in your libraries could be read.</p>
      ) : (
        <ul className="row-list" aria-label="Books with analysis errors">
          {list.map((b) => (
            <li key={b.id} className="row-item">
              <div className="row-main">
                <Link to="/books/$bookId" params={{ bookId: b.id }}>
                  {b.title}
                </Link>
                <code className="hint path">{b.path}</code>
                <span className="error-text">{b.analysis_error}</span>
              </div>
              <div className="row-actions">
                <button type="button" disabled={analyze.isPending} onClick={() => analyze.mutate(b.id)}>
                  Analyse again<span className="visually-hidden"> {b.title}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {books.data && books.data.total > list.length && (
        <p className="hint">
          Showing {list.length} of {books.data.total}.
        </p>
      )}
    </section>
  );
}

/** Health, a summary of the metrics, and thumbnail cleanup. */
export function ServerScreen() {
  const health = useQuery({ queryKey: ['health'], queryFn: () => ok(api.GET('/health')), refetchInterval: 30_000 });
  const metrics = useQuery({ queryKey: ['metrics'], queryFn: () => ok(api.GET('/api/v1/metrics')), refetchInterval: 30_000 });
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
