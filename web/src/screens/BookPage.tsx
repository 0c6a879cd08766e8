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
  if (book.isPending) return <p className="page">Loading…</p>;
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
    ['Title', m.title, src.title],
    ['Series', m.series ?? '—', src.series],
    ['Number', b.number ?? '—', src.number],
    ['Volume', b.volume ?? '—', src.volume],
    ['Year', m.year ?? '—', src.year],
    ['Publisher', m.publisher ?? '—', src.publisher],
    ['Language', m.language ?? '—', src.language],
    ['ISBN', m.isbn ?? '—', src.isbn],
    ['Authors', m.authors.length ? m.authors.map((a) => `${a.name} (${a.role})`).join(', ') : '—', src.authors],
    ['Genres', m.genres.join(', ') || '—', src.genres],
    ['Tags', m.tags.join(', ') || '—', src.tags],
    ['Format', b.format?.toUpperCase() ?? 'Not identified', null],
    ['Pages', b.page_count, src.page_count],
    ['Size', formatBytes(b.file_size), null],
    ['File', <code key="path">{b.path}</code>, null],
    ['File modified', formatDate(b.file_modified_at), null],
    ['Added', formatDate(b.created_at), null],
  ];

  return (
    <div className="page">
      <div className="detail">
        <Cover src={`/api/v1/books/${b.id}/thumbnail`} alt={`Cover of ${b.title}`} className="detail-cover" />
        <div className="detail-body">
          <p className="eyebrow">
            {series.data ? (
              <Link to="/series/$seriesId" params={{ seriesId: b.series_id }}>
                {series.data.metadata.title}
              </Link>
            ) : (
              'Series'
            )}
          </p>
          <h1>{bookLabel(b)}</h1>
          {b.analysis_error && (
            <p className="error-text" role="alert">
              This file could not be fully analysed: {b.analysis_error}
            </p>
          )}
          <div className="progress-block">
            {state === 'unread' && <p>Not started.</p>}
            {state === 'read' && <p>Read{b.progress?.completed_at ? ` on ${formatDate(b.progress.completed_at)}` : ''}.</p>}
            {state === 'in-progress' && b.progress && (
              <>
                <ProgressBar value={b.progress.progress} label={`${Math.round(b.progress.progress * 100)}% read`} />
                <p>
                  Page {b.progress.current_page} of {b.page_count}
                </p>
              </>
            )}
          </div>
          <div className="actions">
            {b.page_count > 0 && (
              <Link to="/books/$bookId/read" params={{ bookId: b.id }} className="button primary">
                {state === 'in-progress' ? 'Continue reading' : 'Read'}
              </Link>
            )}
            {/* A plain link: the browser streams the file to disk (the session's file cookie authenticates it). */}
            <a className="button" href={`/api/v1/books/${b.id}/file`} download={b.file_name}>
              Download
            </a>
            <button type="button" onClick={() => mark.mutate(state !== 'read')} disabled={mark.isPending}>
              {state === 'read' ? 'Mark unread' : 'Mark read'}
            </button>
            {canEdit && (
              <button type="button" onClick={() => setEditOpen(true)}>
                Edit
              </button>
            )}
            {canEdit && (
              <button type="button" onClick={() => setCoverOpen(true)}>
                Change cover…
              </button>
            )}
          </div>
          {editOpen && <EditMetadataDialog target={{ kind: 'book', entity: b }} suggestions={words} onClose={() => setEditOpen(false)} />}
          {coverOpen && (
            <CoverPicker
              target={{ kind: 'book', id: b.id }}
              title={bookLabel(b)}
              books={[{ id: b.id, label: bookLabel(b), page_count: b.page_count }]}
              onClose={() => setCoverOpen(false)}
            />
          )}
          <ErrorMessage error={mark.error ?? series.error ?? siblings.error} />
          <AddToReadList bookIds={[b.id]} title={bookLabel(b)} />
          <MetadataHistory kind="book" id={b.id} />
          {m.summary && (
            <p className="summary">
              {m.summary}
              {src.summary && <span className="source-tag">Summary from {METADATA_SOURCE_LABEL[src.summary]}</span>}
            </p>
          )}
          <ExternalLinks links={m.links} />
          <dl className="facts">
            {rows.map(([label, value, source]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>
                  {value}
                  {source && <span className="source-tag">from {METADATA_SOURCE_LABEL[source]}</span>}
                </dd>
              </div>
            ))}
          </dl>
          <WhyPanel bookId={b.id} />
          <nav className="prev-next" aria-label="Other books of the series">
            {previous ? (
              <Link to="/books/$bookId" params={{ bookId: previous.id }} rel="prev">
                ← Previous: {bookLabel(previous)}
              </Link>
            ) : (
              <span />
            )}
            {next && (
              <Link to="/books/$bookId" params={{ bookId: next.id }} rel="next">
                Next: {bookLabel(next)} →
              </Link>
            )}
          </nav>
        </div>
      </div>
    </div>
  );
}
