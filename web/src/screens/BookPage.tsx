import { DownloadButton } from '../offline/DownloadButton';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { meQuery, seriesBooksQuery } from '../api/queries';
import { readState } from '../components/Cards';
import { Cover } from '../components/Cover';
import { CoverPicker } from '../components/CoverPicker';
import { EditMetadataDialog } from '../components/metadata/EditMetadata';
import { roleInWords } from '../components/metadata/fields';
import { ExternalLinks } from '../components/metadata/ExternalLinks';
import { MetadataHistory, useLibraryWords } from '../components/metadata/History';
import { ErrorMessage } from '../components/ErrorView';
import { ProgressBar } from '../components/ProgressBar';
import { AddToReadList } from './book/AddToReadList';
import { WhyPanel } from './book/WhyPanel';
import { bookLabel, formatBytes, formatDate, METADATA_SOURCE_LABEL, type MetadataSourceKey } from '../lib/format';

const route = getRouteApi('/app/books/$bookId');

export function BookPage() {
  const { bookId } = route.useParams();
  const queryClient = useQueryClient();
  const { t, i18n } = useLingui();
  const book = useQuery({
    queryKey: queryKeys.books.detail(bookId),
    queryFn: () => ok(api.GET('/api/v1/books/{id}', { params: { path: { id: bookId } } })),
  });
  const seriesId = book.data?.series_id;
  const series = useQuery({
    queryKey: queryKeys.series.detail(seriesId),
    queryFn: () => ok(api.GET('/api/v1/series/{id}', { params: { path: { id: seriesId as string } } })),
    enabled: !!seriesId,
  });
  const siblings = useQuery(seriesBooksQuery(seriesId));
  const canEdit = useQuery(meQuery).data?.permissions.includes('books-write') === true;
  const [coverOpen, setCoverOpen] = useState(false);
  const [editOpen, setEditOpen] = useState(false);
  const words = useLibraryWords(book.data?.library_id, editOpen);
  const mark = useMutation({
    mutationFn: (read: boolean) =>
      ok(api.POST(read ? '/api/v1/books/{id}/read' : '/api/v1/books/{id}/unread', { params: { path: { id: bookId } } })),
    onSuccess: () =>
      Promise.all(
        [queryKeys.books.all, queryKeys.series.all, queryKeys.shelves.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      ),
  });

  if (book.error) throw book.error;
  if (book.isPending)
    return (
      <p className="page">
        <Trans>Loading…</Trans>
      </p>
    );
  const b = book.data;
  const m = b.metadata;
  const state = readState(b);
  const list = siblings.data?.data ?? [];
  const index = list.findIndex((x) => x.id === b.id);
  const previous = index > 0 ? list[index - 1] : undefined;
  const next = index >= 0 ? list[index + 1] : undefined;

  // The third element: where the value came from (GET /books/{id} names it per field).
  const src = m.sources;
  const rows: Array<[string, React.ReactNode, MetadataSourceKey | null | undefined]> = [
    [t`Title`, m.title, src.title],
    [t`Series`, m.series ?? '—', src.series],
    [t({ message: 'Number', context: 'book number' }), b.number ?? '—', src.number],
    [t`Volume`, b.volume ?? '—', src.volume],
    [t`Year`, m.year ?? '—', src.year],
    [t`Publisher`, m.publisher ?? '—', src.publisher],
    [t`Language`, m.language ?? '—', src.language],
    [t`ISBN`, m.isbn ?? '—', src.isbn],
    [t`Authors`, m.authors.length ? m.authors.map((a) => `${a.name} (${roleInWords(a.role)})`).join(', ') : '—', src.authors],
    [t`Genres`, m.genres.join(', ') || '—', src.genres],
    [t`Tags`, m.tags.join(', ') || '—', src.tags],
    [t`Format`, b.format?.toUpperCase() ?? t`Not identified`, null],
    [t`Pages`, b.page_count, src.page_count],
    [t`Size`, formatBytes(b.file_size), null],
    [t`File`, <code key="path">{b.path}</code>, null],
    [t`File modified`, formatDate(b.file_modified_at), null],
    [t`Added`, formatDate(b.created_at), null],
  ];
  const title = b.title;
  const label = bookLabel(b);
  const analysisError = b.analysis_error;
  const completed = b.progress?.completed_at ? formatDate(b.progress.completed_at) : null;
  const read = b.progress ? i18n.number(Math.round(b.progress.progress * 100) / 100, { style: 'percent' }) : '';
  const currentPage = b.progress?.current_page;
  const pageCount = b.page_count;
  const summarySource = src.summary ? METADATA_SOURCE_LABEL[src.summary] : null;
  const previousLabel = previous ? bookLabel(previous) : '';
  const nextLabel = next ? bookLabel(next) : '';

  return (
    <div className="page">
      <div className="detail">
        <Cover src={`/api/v1/books/${b.id}/thumbnail`} alt={t`Cover of ${title}`} className="detail-cover" />
        <div className="detail-body">
          <p className="eyebrow">
            {series.data ? (
              <Link to="/series/$seriesId" params={{ seriesId: b.series_id }}>
                {series.data.metadata.title}
              </Link>
            ) : (
              <Trans>Series</Trans>
            )}
          </p>
          <h1>{label}</h1>
          {b.analysis_error && (
            <p className="error-text" role="alert">
              <Trans>This file could not be fully analysed: {analysisError}</Trans>
            </p>
          )}
          <div className="progress-block">
            {state === 'unread' && (
              <p>
                <Trans>Not started.</Trans>
              </p>
            )}
            {state === 'read' && (
              <p>{completed ? <Trans context="book status">Read on {completed}.</Trans> : <Trans context="book status">Read.</Trans>}</p>
            )}
            {state === 'in-progress' && b.progress && (
              <>
                <ProgressBar value={b.progress.progress} label={t`${read} read`} />
                <p>
                  <Trans>
                    Page {currentPage} of {pageCount}
                  </Trans>
                </p>
              </>
            )}
          </div>
          <div className="actions">
            {b.page_count > 0 && (
              <Link to="/books/$bookId/read" params={{ bookId: b.id }} className="button primary">
                {state === 'in-progress' ? <Trans>Continue reading</Trans> : <Trans context="verb">Read</Trans>}
              </Link>
            )}
            {/* A plain link: the browser streams the file to disk (the session's file cookie authenticates it). */}
            <a className="button" href={`/api/v1/books/${b.id}/file`} download={b.file_name}>
              <Trans>Download</Trans>
            </a>
            <button type="button" onClick={() => mark.mutate(state !== 'read')} disabled={mark.isPending}>
              {state === 'read' ? <Trans>Mark unread</Trans> : <Trans>Mark read</Trans>}
            </button>
            {b.page_count > 0 && <DownloadButton bookId={b.id} />}
            {canEdit && (
              <button type="button" onClick={() => setEditOpen(true)}>
                <Trans>Edit</Trans>
              </button>
            )}
            {canEdit && (
              <button type="button" onClick={() => setCoverOpen(true)}>
                <Trans>Change cover…</Trans>
              </button>
            )}
          </div>
          {editOpen && <EditMetadataDialog target={{ kind: 'book', entity: b }} suggestions={words} onClose={() => setEditOpen(false)} />}
          {coverOpen && (
            <CoverPicker
              target={{ kind: 'book', id: b.id }}
              title={label}
              books={[{ id: b.id, label, page_count: b.page_count }]}
              onClose={() => setCoverOpen(false)}
            />
          )}
          <ErrorMessage error={mark.error ?? series.error ?? siblings.error} />
          <AddToReadList bookIds={[b.id]} title={label} />
          <MetadataHistory kind="book" id={b.id} />
          {m.summary && (
            <p className="summary">
              {m.summary}
              {summarySource && (
                <span className="source-tag">
                  <Trans>Summary from {summarySource}</Trans>
                </span>
              )}
            </p>
          )}
          <ExternalLinks links={m.links} />
          <dl className="facts">
            {rows.map(([name, value, source]) => {
              const origin = source ? METADATA_SOURCE_LABEL[source] : null;
              return (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd>
                    {value}
                    {origin && (
                      <span className="source-tag">
                        <Trans>from {origin}</Trans>
                      </span>
                    )}
                  </dd>
                </div>
              );
            })}
          </dl>
          <WhyPanel bookId={b.id} />
          <nav className="prev-next" aria-label={t`Other books of the series`}>
            {previous ? (
              <Link to="/books/$bookId" params={{ bookId: previous.id }} rel="prev">
                <Trans>← Previous: {previousLabel}</Trans>
              </Link>
            ) : (
              <span />
            )}
            {next && (
              <Link to="/books/$bookId" params={{ bookId: next.id }} rel="next">
                <Trans>Next: {nextLabel} →</Trans>
              </Link>
            )}
          </nav>
        </div>
      </div>
    </div>
  );
}
