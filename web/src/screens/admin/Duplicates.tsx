import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { Cover } from '../../components/Cover';
import { ErrorMessage } from '../../components/ErrorView';
import { formatBytes, formatDate, plural } from '../../lib/format';

/** Duplicate groups: books with the same content, series that look like the same work; each with covers. */
export function DuplicatesScreen() {
  const queryClient = useQueryClient();
  const books = useQuery({
    queryKey: queryKeys.duplicates.books,
    queryFn: () => ok(api.GET('/api/v1/duplicates', { params: { query: { pageSize: 100 } } })),
  });
  const series = useQuery({
    queryKey: queryKeys.duplicates.series,
    queryFn: () => ok(api.GET('/api/v1/duplicates/series', { params: { query: { pageSize: 100 } } })),
  });
  const detect = useMutation({ mutationFn: () => ok(api.POST('/api/v1/duplicates/scan')) });
  const dismissBooks = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/duplicates/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.duplicates.all }),
  });
  const dismissSeries = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/duplicates/series/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.duplicates.all }),
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
