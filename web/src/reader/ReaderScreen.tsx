import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import { preferencesQuery } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { ErrorMessage } from '../components/ErrorView';
import { withDetail } from '../lib/format';
import { notFoundTitle } from '../lib/not-found';
import { ComicReader } from './ComicReader';
import { isImageBook, savedPage, useBook, usePages, useSeries } from './data';
import './reader.css';

// The EPUB engine (foliate-js) is its own chunk: a comic never downloads it.
const EpubReader = lazy(() => import('./EpubReader').then((m) => ({ default: m.EpubReader })));

const route = getRouteApi('/books/$bookId/read');

/** The reader route: opens a book where the user left it, in the comic reader or, for reflowable EPUB, the EPUB reader. */
export function ReaderScreen() {
  const { t } = useLingui();
  const { bookId } = route.useParams();
  const search = route.useSearch();
  const book = useBook(bookId);
  const pages = usePages(bookId);
  const series = useSeries(book.data?.series_id);
  // Always asked afresh: the position may have moved on another device since this tab last looked. Asked once:
  // the reader moves on from it, and a refetch on reconnect would only bring back what it has since left.
  const queryClient = useQueryClient();
  const saved = useQuery({
    queryKey: queryKeys.progress(bookId),
    queryFn: () => savedPage(queryClient, bookId),
    staleTime: 0,
    gcTime: 0,
    refetchOnReconnect: false,
  });
  // The reader's settings (direction, fit, e-ink…) are the account's: a book is not shown with defaults in their
  // place, and a setting changed here must not be saved over settings that were never loaded. Asked afresh on
  // opening (the cached ones show meanwhile): a change here saves the whole set, which should be the newest.
  const prefs = useQuery({ ...preferencesQuery, staleTime: 0 });

  // A refetch that fails while the reader already has what it asked for changes nothing on screen.
  const needed = [book, pages, saved, prefs, ...(book.data?.series_id ? [series] : [])];
  const failed = needed.filter((q) => q.data === undefined && q.error);
  if (failed.length > 0) {
    const missing = notFoundTitle(failed[0]!.error, `/books/${bookId}`);
    if (missing) {
      return (
        <div className="reader reader-message" role="alert">
          <h1>{missing}</h1>
          <p>
            <Trans>There is nothing at this address: the book may have been removed, or the link is wrong.</Trans>
          </p>
          <Link to="/">
            <Trans>Go to the home page</Trans>
          </Link>
        </div>
      );
    }
    return (
      <div className="reader reader-message">
        <ErrorMessage error={failed[0]!.error} />
        <p className="actions">
          <button type="button" onClick={() => void Promise.all(failed.map((q) => q.refetch()))}>
            <Trans>Try again</Trans>
          </button>
          <Link to="/">
            <Trans>Home</Trans>
          </Link>
        </p>
      </div>
    );
  }
  if (!book.data || !pages.data || saved.data === undefined || !prefs.data || (book.data.series_id && !series.data)) {
    return (
      <div className="reader reader-message" aria-busy="true">
        <p>
          <Trans>Opening…</Trans>
        </p>
      </div>
    );
  }
  const b = book.data;
  if (b.page_count === 0 || pages.data.length === 0) {
    return (
      <div className="reader reader-message">
        <p>{withDetail(t`This book has no pages to show`, b.analysis_error)}</p>
        <Link to="/books/$bookId" params={{ bookId }}>
          <Trans>Back to the book</Trans>
        </Link>
      </div>
    );
  }
  const progress = saved.data;
  const resume = progress && !progress.is_completed ? progress.current_page - 1 : 0;
  const start = search.page !== undefined ? Math.min(Math.max(1, search.page), pages.data.length) - 1 : resume;
  const seriesTitle = series.data?.metadata.title ?? '';

  if (isImageBook(pages.data)) {
    return (
      <ComicReader
        key={b.id}
        book={b}
        pages={pages.data}
        seriesTitle={seriesTitle}
        seriesDirection={series.data?.metadata.reading_direction ?? null}
        startPage={start}
      />
    );
  }
  return (
    <Suspense
      fallback={
        <div className="reader reader-message" aria-busy="true">
          <p>
            <Trans>Opening…</Trans>
          </p>
        </div>
      }
    >
      <EpubReader key={b.id} book={b} pages={pages.data} seriesTitle={seriesTitle} />
    </Suspense>
  );
}
