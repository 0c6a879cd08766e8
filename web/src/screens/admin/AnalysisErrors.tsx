import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';

/** Books whose file could not be read: the error, where the file is, and a way to try again. */
export function AnalysisErrorsScreen() {
  const { t } = useLingui();
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
  const shown = list.length;
  const total = books.data?.total ?? 0;
  return (
    <section aria-labelledby="errors-heading">
      <h2 id="errors-heading">
        <Trans>Books with analysis errors</Trans>
      </h2>
      <p className="hint">
        <Trans>
          These files were found but could not be read (damaged, encrypted or of an unknown kind). Fix or replace the file, then analyse it
          again.
        </Trans>
      </p>
      <ErrorMessage error={books.error ?? analyze.error} />
      {analyze.isSuccess && (
        <p className="hint" role="status">
          <Trans>Analysis queued — the book leaves this list once it reads without error.</Trans>
        </p>
      )}
      {books.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !books.data ? null : list.length === 0 ? (
        <p className="empty">
          <Trans>No analysis errors — every file in your libraries could be read.</Trans>
        </p>
      ) : (
        <ul className="row-list" aria-label={t`Books with analysis errors`}>
          {list.map(({ id, title, path, analysis_error }) => (
            <li key={id} className="row-item">
              <div className="row-main">
                <Link to="/books/$bookId" params={{ bookId: id }}>
                  {title}
                </Link>
                <code className="hint path">{path}</code>
                <span className="error-text">{analysis_error}</span>
              </div>
              <div className="row-actions">
                <button type="button" disabled={analyze.isPending} onClick={() => analyze.mutate(id)}>
                  <Trans>
                    Analyse again<span className="visually-hidden"> {title}</span>
                  </Trans>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {books.data && total > shown && (
        <p className="hint">
          <Trans>
            Showing {shown} of {total}.
          </Trans>
        </p>
      )}
    </section>
  );
}
