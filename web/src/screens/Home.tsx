import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, ok } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { librariesQuery, meQuery } from '../api/queries';
import { BookCard, SeriesCard, type Book, type Series } from '../components/Cards';
import { ErrorMessage } from '../components/ErrorView';
import { seesEverything } from '../lib/content-access';
import { SHELF_IDS, SHELVES, shelfEmptyText, type ShelfId } from '../lib/shelves';

function shelfQuery(id: ShelfId, pageSize: number) {
  const path = SHELVES[id].path;
  return {
    queryKey: queryKeys.shelves.shelf(id, pageSize),
    queryFn: async (): Promise<{ data: Array<Book | Series>; total: number }> => ok(api.GET(path, { params: { query: { pageSize } } })),
  };
}

function Shelf({ id }: { id: ShelfId }) {
  const shelf = SHELVES[id];
  const query = useQuery(shelfQuery(id, 20));
  const seesAll = seesEverything(useQuery(meQuery).data);
  const headingId = `shelf-${id}`;
  return (
    <section className="shelf" aria-labelledby={headingId}>
      <div className="shelf-head">
        <h2 id={headingId}>{shelf.title}</h2>
        {query.data && query.data.total > 0 && (
          <Link to="/shelves/$shelf" params={{ shelf: id }} aria-label={`See all: ${shelf.title}`}>
            See all ({query.data.total})
          </Link>
        )}
      </div>
      <ErrorMessage error={query.error} />
      {query.data?.data.length === 0 && <p className="empty">{shelfEmptyText(id, seesAll)}</p>}
      {query.data && query.data.data.length > 0 && (
        <ul className="shelf-row">
          {query.data.data.map((item) => (
            <li key={item.id}>{shelf.kind === 'series' ? <SeriesCard series={item as Series} /> : <BookCard book={item as Book} />}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function Home() {
  const libraries = useQuery(librariesQuery);
  const me = useQuery(meQuery).data;
  const canAddLibraries = me?.permissions.includes('libraries-write') === true;
  // Libraries are listed as the account may see them: for a user who does not see everything, none listed may
  // mean none shared with it.
  const seesAll = seesEverything(me);
  if (libraries.data && libraries.data.total === 0) {
    return (
      <div className="page narrow">
        <h1>Home</h1>
        <p className="empty">
          {seesAll ? 'No libraries yet.' : 'No library you can see yet.'}{' '}
          {canAddLibraries ? (
            <>
              <Link to="/admin/libraries">Add one under Administration → Libraries</Link>: pick the folder on the server that holds your
              comics or books.
            </>
          ) : (
            'An administrator adds libraries, and decides which libraries and ratings your account shows.'
          )}
        </p>
      </div>
    );
  }
  return (
    <div className="page">
      <h1 className="visually-hidden">Home</h1>
      <ErrorMessage error={libraries.error} />
      {SHELF_IDS.map((id) => (
        <Shelf key={id} id={id} />
      ))}
    </div>
  );
}

const shelfRouteApi = getRouteApi('/app/shelves/$shelf');

/** A shelf's "see all": every item, in pages of 100. */
export function ShelfPage() {
  const { shelf: id } = shelfRouteApi.useParams();
  const shelf = SHELVES[id];
  const query = useQuery(shelfQuery(id, 500));
  const seesAll = seesEverything(useQuery(meQuery).data);
  return (
    <div className="page">
      <h1>{shelf.title}</h1>
      <ErrorMessage error={query.error} />
      {query.isPending && <p>Loading…</p>}
      {query.data?.data.length === 0 && <p className="empty">{shelfEmptyText(id, seesAll)}</p>}
      {query.data && query.data.data.length > 0 && (
        <ul className="grid">
          {query.data.data.map((item) => (
            <li key={item.id}>{shelf.kind === 'series' ? <SeriesCard series={item as Series} /> : <BookCard book={item as Book} />}</li>
          ))}
        </ul>
      )}
      {query.data && query.data.total > query.data.data.length && (
        <p className="hint">
          Showing the first {query.data.data.length} of {query.data.total}.
        </p>
      )}
    </div>
  );
}
