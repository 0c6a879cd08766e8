import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { Cover } from '../../components/Cover';
import { ErrorMessage } from '../../components/ErrorView';
import { formatBytes, formatDate } from '../../lib/format';

/** Duplicate groups: books with the same content, series that look like the same work; each with covers. */
export function DuplicatesScreen() {
  const { t } = useLingui();
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
  const bookGroupCount = bookGroups.length;
  const seriesGroupCount = seriesGroups.length;

  return (
    <section aria-labelledby="dupes-heading">
      <div className="section-head">
        <h2 id="dupes-heading">
          <Trans>Duplicates</Trans>
        </h2>
        <button type="button" className="primary" disabled={detect.isPending} onClick={() => detect.mutate()}>
          <Trans>Look for duplicates now</Trans>
        </button>
      </div>
      {detect.isSuccess && (
        <p className="hint" role="status">
          <Trans>Duplicate detection started — follow it under Tasks; refresh this page when it has finished.</Trans>
        </p>
      )}
      <p className="hint">
        <Trans>
          Dismissing a group only forgets it: no file is touched, and the next detection finds it again if the duplicates remain.
        </Trans>
      </p>
      <ErrorMessage error={books.error ?? series.error ?? detect.error ?? dismissBooks.error ?? dismissSeries.error} />

      <h3>
        <Trans>Same book, several files ({bookGroupCount})</Trans>
      </h3>
      {books.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !books.data ? null : bookGroups.length === 0 ? (
        <p className="empty">
          <Trans>No duplicate books found. Run a detection after adding files to check again.</Trans>
        </p>
      ) : (
        <ul className="dupe-groups">
          {bookGroups.map((g) => {
            const count = g.book_count;
            const copies = plural(count, { one: `${count} copy`, other: `${count} copies` });
            const size = formatBytes(g.total_size);
            return (
              <li key={g.id} className="card dupe-group">
                <div className="section-head">
                  <span>
                    <Trans>
                      {copies} · {size} in all
                    </Trans>
                  </span>
                  <button type="button" className="small" onClick={() => dismissBooks.mutate(g.id)}>
                    <Trans>Dismiss</Trans>
                  </button>
                </div>
                <ul className="dupe-members">
                  {g.books.map((b) => {
                    const title = b.title;
                    return (
                      <li key={b.book_id}>
                        <Cover src={`/api/v1/books/${b.book_id}/thumbnail`} alt={t`Cover of ${title}`} className="dupe-cover" />
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
                    );
                  })}
                </ul>
              </li>
            );
          })}
        </ul>
      )}

      <h3>
        <Trans>Possibly the same series ({seriesGroupCount})</Trans>
      </h3>
      {series.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !series.data ? null : seriesGroups.length === 0 ? (
        <p className="empty">
          <Trans>
            No duplicate series found. Run a detection after a scan to check again; series matched by title or by an external id appear
            here.
          </Trans>
        </p>
      ) : (
        <ul className="dupe-groups">
          {seriesGroups.map((g) => (
            <li key={g.id} className="card dupe-group">
              <div className="section-head">
                <span>
                  {g.confidence === 'high' ? <Trans>Same upstream record</Trans> : <Trans>Same title</Trans>} <code>{g.match_key}</code>
                </span>
                <button type="button" className="small" onClick={() => dismissSeries.mutate(g.id)}>
                  <Trans>Dismiss</Trans>
                </button>
              </div>
              <ul className="dupe-members">
                {g.series.map((s) => {
                  const name = s.name;
                  const library = s.library.name;
                  const bookCount = s.book_count;
                  const books = plural(bookCount, { one: `${bookCount} book`, other: `${bookCount} books` });
                  const updated = formatDate(s.last_updated);
                  return (
                    <li key={s.series_id}>
                      <Cover src={`/api/v1/series/${s.series_id}/thumbnail`} alt={t`Cover of ${name}`} className="dupe-cover" />
                      <div>
                        <Link to="/series/$seriesId" params={{ seriesId: s.series_id }}>
                          {s.name}
                        </Link>
                        <span className="hint">
                          <Trans>
                            {library} · {books} · updated {updated}
                          </Trans>
                        </span>
                      </div>
                    </li>
                  );
                })}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
