import type { MessageDescriptor } from '@lingui/core';
import { DownloadNextButton } from '../offline/DownloadButton';
import { msg, plural } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { librariesQuery, meQuery, seriesBooksQuery, usePreference } from '../api/queries';
import { readState, type Book } from '../components/Cards';
import { Cover } from '../components/Cover';
import { CoverPicker } from '../components/CoverPicker';
import { EditMetadataDialog } from '../components/metadata/EditMetadata';
import { IdentifyDialog } from '../components/metadata/IdentifyDialog';
import { ExternalLinks } from '../components/metadata/ExternalLinks';
import { MetadataHistory, useLibraryWords } from '../components/metadata/History';
import { ErrorMessage } from '../components/ErrorView';
import { ProgressBar } from '../components/ProgressBar';
import { bookLabel, formatBytes } from '../lib/format';
import { AddToCollection } from './series/AddToCollection';
import { SharingLabels } from './series/SharingLabels';
import { WantToReadToggle } from './series/WantToRead';

const route = getRouteApi('/app/series/$seriesId');

const STATE_LABEL = {
  read: msg({ message: 'Read', context: 'book status' }),
  'in-progress': msg({ message: 'In progress', context: 'book status' }),
  unread: msg({ message: 'Unread', context: 'book status' }),
} as const;

/** A series' status in words, as the API names it (lower case). */
const STATUS_WORDS: Readonly<Record<string, MessageDescriptor>> = {
  ongoing: msg({ message: 'ongoing', context: 'series status' }),
  ended: msg({ message: 'ended', context: 'series status' }),
  abandoned: msg({ message: 'abandoned', context: 'series status' }),
  hiatus: msg({ message: 'hiatus', context: 'series status' }),
};

/** The book to open next: the one in progress, else the first unread, else the first; and whether it continues or starts the series. */
export function nextBookToRead(books: Book[]): { book: Book; verb: 'continue' | 'start' } | null {
  const inProgress = books.find((b) => readState(b) === 'in-progress');
  if (inProgress) return { book: inProgress, verb: 'continue' };
  const unread = books.find((b) => readState(b) === 'unread');
  if (unread) return { book: unread, verb: books.some((b) => readState(b) === 'read') ? 'continue' : 'start' };
  return books[0] ? { book: books[0], verb: 'start' } : null;
}

export function SeriesPage() {
  const { seriesId } = route.useParams();
  const queryClient = useQueryClient();
  const { t, i18n } = useLingui();
  const series = useQuery({
    queryKey: queryKeys.series.detail(seriesId),
    queryFn: () => ok(api.GET('/api/v1/series/{id}', { params: { path: { id: seriesId } } })),
  });
  const books = useQuery(seriesBooksQuery(seriesId));
  // Account → Preferences → "Show books already read": unticked, finished books are left out here (a note says
  // how many, and shows them on request).
  const showReadPreference = usePreference<boolean>('show_read_books', true);
  const [showReadHere, setShowReadHere] = useState(false);
  const [coverOpen, setCoverOpen] = useState(false);
  const [editOpen, setEditOpen] = useState(false);
  const [identifyOpen, setIdentifyOpen] = useState(false);
  const words = useLibraryWords(series.data?.library_id, editOpen);
  const hideRead = showReadPreference === false && !showReadHere;
  const library = useQuery(librariesQuery).data?.data.find((l) => l.id === series.data?.library_id);
  // Sharing labels decide which users see the series: shown to those who may change them, and to nobody else.
  const canEditSeries = useQuery(meQuery).data?.permissions.includes('series-write') === true;
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.series.all }),
      queryClient.invalidateQueries({ queryKey: queryKeys.books.all }),
      queryClient.invalidateQueries({ queryKey: queryKeys.shelves.all }),
    ]);
  const markSeries = useMutation({
    mutationFn: (read: boolean) =>
      ok(api.POST(read ? '/api/v1/series/{id}/read' : '/api/v1/series/{id}/unread', { params: { path: { id: seriesId } } })),
    onSuccess: refresh,
  });
  const markBook = useMutation({
    mutationFn: ({ id, read }: { id: string; read: boolean }) =>
      ok(api.POST(read ? '/api/v1/books/{id}/read' : '/api/v1/books/{id}/unread', { params: { path: { id } } })),
    onSuccess: refresh,
  });

  if (series.error) throw series.error;
  if (series.isPending)
    return (
      <p className="page">
        <Trans>Loading…</Trans>
      </p>
    );
  const s = series.data;
  const m = s.metadata;
  const all = books.data?.data ?? [];
  const next = nextBookToRead(all);
  const list = hideRead ? all.filter((b) => readState(b) !== 'read') : all;
  const hiddenRead = all.length - list.length;
  const progress = s.book_count > 0 ? s.books_read_count / s.book_count : 0;
  // Books in progress fill the bar by how far each is read (half a book each until the books have loaded).
  const inProgressBooks = all.filter((b) => readState(b) === 'in-progress');
  const partialBooks =
    inProgressBooks.length > 0 ? inProgressBooks.reduce((sum, b) => sum + (b.progress?.progress ?? 0), 0) : s.books_in_progress_count * 0.5;
  const partial = s.book_count > 0 ? partialBooks / s.book_count : 0;
  const title = m.title;
  const bookCount = s.book_count;
  const readCount = s.books_read_count;
  const inProgressCount = s.books_in_progress_count;
  const statusWords = m.status ? STATUS_WORDS[m.status] : undefined;
  const status = statusWords ? i18n._(statusWords) : m.status;
  const alsoKnownAs = m.alternate_titles.map((a) => (a.label ? `${a.title} (${a.label})` : a.title)).join(' · ');
  const nextLabel = next ? bookLabel(next.book) : '';

  return (
    <div className="page">
      <div className="detail">
        <Cover src={`/api/v1/series/${s.id}/thumbnail`} alt={t`Cover of ${title}`} className="detail-cover" />
        <div className="detail-body">
          <p className="eyebrow">
            <Link to="/libraries/$libraryId" params={{ libraryId: s.library_id }}>
              {library?.name ?? t`Library`}
            </Link>
          </p>
          <h1>{m.title}</h1>
          {m.alternate_titles.length > 0 && (
            <p className="alternate-titles">
              <Trans>Also known as: {alsoKnownAs}</Trans>
            </p>
          )}
          <p className="meta-line">
            {[m.year, m.publisher, status, m.language, plural(bookCount, { one: '# book', other: '# books' }), formatBytes(s.file_size)]
              .filter(Boolean)
              .join(' · ')}
          </p>
          <ProgressBar
            value={progress}
            partial={partial}
            label={
              inProgressCount > 0
                ? plural(bookCount, {
                    one: `${readCount} of # books read, ${inProgressCount} in progress`,
                    other: `${readCount} of # books read, ${inProgressCount} in progress`,
                  })
                : plural(bookCount, { one: `${readCount} of # books read`, other: `${readCount} of # books read` })
            }
          />
          <p className="hint">
            {inProgressCount > 0 ? (
              <Trans>
                {readCount} of {bookCount} read, {inProgressCount} in progress
              </Trans>
            ) : (
              <Trans>
                {readCount} of {bookCount} read
              </Trans>
            )}
          </p>
          {(m.genres.length > 0 || m.tags.length > 0) && (
            <ul className="chips" aria-label={t`Genres and tags`}>
              {m.genres.map((g) => (
                <li key={`g-${g}`}>
                  <Link to="/libraries" search={{ genre: [g] }} className="chip">
                    {g}
                  </Link>
                </li>
              ))}
              {m.tags.map((t) => (
                <li key={`t-${t}`}>
                  <Link to="/libraries" search={{ tag: [t] }} className="chip tag">
                    {t}
                  </Link>
                </li>
              ))}
            </ul>
          )}
          {m.summary && <p className="summary">{m.summary}</p>}
          <ExternalLinks links={m.links} />
          <div className="actions">
            {next && (
              <Link to="/books/$bookId/read" params={{ bookId: next.book.id }} className="button primary">
                {next.verb === 'continue' ? <Trans>Continue: {nextLabel}</Trans> : <Trans>Start: {nextLabel}</Trans>}
              </Link>
            )}
            <button type="button" onClick={() => markSeries.mutate(true)} disabled={markSeries.isPending}>
              <Trans>Mark series read</Trans>
            </button>
            <button
              type="button"
              onClick={() => markSeries.mutate(false)}
              // Nothing read or started: there is nothing to mark unread.
              disabled={markSeries.isPending || (s.books_read_count === 0 && s.books_in_progress_count === 0)}
            >
              <Trans>Mark series unread</Trans>
            </button>
            <WantToReadToggle seriesId={s.id} />
            <DownloadNextButton kind="series" books={all.map((b) => ({ id: b.id, unread: readState(b) !== 'read' }))} />
            {canEditSeries && (
              <button type="button" onClick={() => setEditOpen(true)}>
                <Trans>Edit</Trans>
              </button>
            )}
            {canEditSeries && (
              <button type="button" onClick={() => setCoverOpen(true)}>
                <Trans>Change cover…</Trans>
              </button>
            )}
            {canEditSeries && (
              <button type="button" onClick={() => setIdentifyOpen(true)}>
                <Trans>Identify…</Trans>
              </button>
            )}
          </div>
          {identifyOpen && <IdentifyDialog seriesIds={[s.id]} onClose={() => setIdentifyOpen(false)} />}
          {editOpen && <EditMetadataDialog target={{ kind: 'series', entity: s }} suggestions={words} onClose={() => setEditOpen(false)} />}
          {coverOpen && (
            <CoverPicker
              target={{ kind: 'series', id: s.id }}
              title={m.title}
              books={all.map((b) => ({ id: b.id, label: bookLabel(b), page_count: b.page_count }))}
              onClose={() => setCoverOpen(false)}
            />
          )}
          <ErrorMessage error={markSeries.error ?? markBook.error} />
          <AddToCollection seriesIds={[s.id]} title={m.title} />
          {canEditSeries && <SharingLabels series={s} />}
          <MetadataHistory kind="series" id={s.id} />
        </div>
      </div>

      <h2>
        <Trans>Books</Trans>
      </h2>
      <ErrorMessage error={books.error} />
      {hiddenRead > 0 && (
        <p className="hint hidden-read">
          <Plural
            value={hiddenRead}
            one="# book you have read is hidden (Account → Preferences)."
            other="# books you have read are hidden (Account → Preferences)."
          />{' '}
          <button type="button" className="link-button" onClick={() => setShowReadHere(true)}>
            <Plural value={hiddenRead} one="Show it" other="Show them" />
          </button>
        </p>
      )}
      {books.data && all.length === 0 && (
        <p className="empty">
          <Trans>This series has no books left: their files may have been removed. Scan the library to pick up new files.</Trans>
        </p>
      )}
      <ol className="book-list">
        {list.map((b) => {
          const state = readState(b);
          const label = bookLabel(b);
          const read = b.progress ? i18n.number(Math.round(b.progress.progress * 100) / 100, { style: 'percent' }) : '';
          const pageCount = b.page_count;
          return (
            <li key={b.id} className={`book-row ${state}`} data-testid="book-row">
              <Cover src={`/api/v1/books/${b.id}/thumbnail`} alt="" className="row-cover" />
              <div className="book-row-body">
                <Link to="/books/$bookId" params={{ bookId: b.id }}>
                  {label}
                </Link>
                <span className={`state-mark ${state}`}>{i18n._(STATE_LABEL[state])}</span>
                {state === 'in-progress' && b.progress && (
                  <ProgressBar small value={b.progress.progress} label={t`${label}: ${read} read`} />
                )}
                <span className="card-sub">
                  {plural(pageCount, { one: '# page', other: '# pages' })} · {b.format?.toUpperCase() ?? t`unknown format`} ·{' '}
                  {formatBytes(b.file_size)}
                </span>
              </div>
              <div className="row-actions">
                <a className="button small" href={`/api/v1/books/${b.id}/file`} download={b.file_name}>
                  <Trans>
                    Download<span className="visually-hidden"> {label}</span>
                  </Trans>
                </a>
                <button
                  type="button"
                  className="small"
                  onClick={() => markBook.mutate({ id: b.id, read: state !== 'read' })}
                  disabled={markBook.isPending}
                >
                  {state === 'read' ? (
                    <Trans>
                      Mark unread<span className="visually-hidden">: {label}</span>
                    </Trans>
                  ) : (
                    <Trans>
                      Mark read<span className="visually-hidden">: {label}</span>
                    </Trans>
                  )}
                </button>
              </div>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
