import { Plural, Trans } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, ok } from '../api/client';
import { meQuery } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { BookCard, SeriesCard } from '../components/Cards';
import { ErrorMessage } from '../components/ErrorView';
import { seesEverything } from '../lib/visible-scope';

const route = getRouteApi('/app/search');
const LIMIT = 24;

/** Search results grouped into series and books, each with a link to the full list in the grid. */
export function SearchPage() {
  const { q } = route.useSearch();
  const query = q.trim();
  const seesAll = seesEverything(useQuery(meQuery).data);
  const series = useQuery({
    queryKey: queryKeys.search.series(query),
    queryFn: () => ok(api.POST('/api/v1/series/list', { params: { query: { pageSize: LIMIT } }, body: { fullTextSearch: query } })),
    enabled: query !== '',
  });
  const books = useQuery({
    queryKey: queryKeys.search.books(query),
    queryFn: () => ok(api.POST('/api/v1/books/list', { params: { query: { pageSize: LIMIT } }, body: { fullTextSearch: query } })),
    enabled: query !== '',
  });

  if (query === '') {
    return (
      <div className="page">
        <h1>
          <Trans>Search</Trans>
        </h1>
        <p className="empty">
          <Trans>
            Type in the search box at the top to find series by their name, publisher or summary, and books by their title. To find them by
            genre or tag, filter them in <Link to="/libraries">Libraries</Link>.
          </Trans>
        </p>
      </div>
    );
  }
  const nothing = series.data?.total === 0 && books.data?.total === 0;
  const seriesTotal = series.data?.total ?? 0;
  const booksTotal = books.data?.total ?? 0;
  return (
    <div className="page">
      <h1>
        <Trans>Results for “{query}”</Trans>
      </h1>
      {nothing && (
        <p className="empty">
          <Trans>Nothing matches “{query}”. Try fewer or shorter words: word beginnings match too.</Trans>
          {!seesAll && (
            <>
              {' '}
              <Trans>Only what your account can see is searched: an administrator decides which libraries and ratings it shows.</Trans>
            </>
          )}
        </p>
      )}
      <section aria-labelledby="search-series">
        <div className="shelf-head">
          <h2 id="search-series">{series.data ? <Trans>Series ({seriesTotal})</Trans> : <Trans>Series</Trans>}</h2>
          {series.data && seriesTotal > LIMIT && (
            <Link to="/libraries" search={{ q: query }}>
              <Plural value={seriesTotal} one={`See all ${seriesTotal} series`} other={`See all ${seriesTotal} series`} />
            </Link>
          )}
        </div>
        <ErrorMessage error={series.error} />
        {series.data?.total === 0 && !nothing && (
          <p className="hint">
            <Trans>No series match.</Trans>
          </p>
        )}
        <ul className="grid">
          {series.data?.data.map((s) => (
            <li key={s.id}>
              <SeriesCard series={s} />
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="search-books">
        <div className="shelf-head">
          <h2 id="search-books">{books.data ? <Trans>Books ({booksTotal})</Trans> : <Trans>Books</Trans>}</h2>
          {books.data && booksTotal > LIMIT && (
            <Link to="/libraries" search={{ view: 'books', q: query }}>
              <Plural value={booksTotal} one={`See all ${booksTotal} book`} other={`See all ${booksTotal} books`} />
            </Link>
          )}
        </div>
        <ErrorMessage error={books.error} />
        {books.data?.total === 0 && !nothing && (
          <p className="hint">
            <Trans>No books match.</Trans>
          </p>
        )}
        <ul className="grid">
          {books.data?.data.map((b) => (
            <li key={b.id}>
              <BookCard book={b} />
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
