import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';

/** Books whose file could not be read: the error, where the file is, and a way to try again. */
export function AnalysisErrorsScreen() {
  const queryClient = useQueryClient();
  const books = useQuery({
    queryKey: queryKeys.books.analysisErrors,
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
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.books.analysisErrors }),
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
