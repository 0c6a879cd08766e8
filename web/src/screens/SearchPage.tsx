import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, ok } from '../api/client';
import { meQuery } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { BookCard, SeriesCard } from '../components/Cards';
import { ErrorMessage } from '../components/ErrorView';
import { seesEverything } from '../lib/content-access';
import { plural } from '../lib/format';

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
        <h1>Search</h1>
        <p className="empty">
          Type in the search box at the top to find series by their name, publisher or summary, and books by their title. To find them by
          genre or tag, filter them in <Link to="/libraries">Libraries</Link>.
        </p>
      </div>
    );
  }
  const nothing = series.data?.total === 0 && books.data?.total === 0;
  return (
    <div className="page">
      <h1>Results for “{query}”</h1>
      {nothing && (
        <p className="empty">
          Nothing matches “{query}”. Try fewer or shorter words: word beginnings match too.
          {seesAll ? '' : ' Only what your account can see is searched: an administrator decides which libraries and ratings it shows.'}
        </p>
      )}
      <section aria-labelledby="search-series">
        <div className="shelf-head">
          <h2 id="search-series">Series{series.data ? ` (${series.data.total})` : ''}</h2>
          {series.data && series.data.total > LIMIT && (
            <Link to="/libraries" search={{ q: query }}>
              See all {plural(series.data.total, 'series', 'series')}
            </Link>
          )}
        </div>
        <ErrorMessage error={series.error} />
        {series.data?.total === 0 && !nothing && <p className="hint">No series match.</p>}
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
          <h2 id="search-books">Books{books.data ? ` (${books.data.total})` : ''}</h2>
          {books.data && books.data.total > LIMIT && (
            <Link to="/libraries" search={{ view: 'books', q: query }}>
              See all {plural(books.data.total, 'book')}
            </Link>
          )}
        </div>
        <ErrorMessage error={books.error} />
        {books.data?.total === 0 && !nothing && <p className="hint">No books match.</p>}
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
