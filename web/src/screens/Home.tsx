import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, ok } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { librariesQuery, meQuery } from '../api/queries';
import { BookCard, SeriesCard, type Book, type Series } from '../components/Cards';
import { ErrorMessage } from '../components/ErrorView';
import { seesEverything } from '../lib/visible-scope';
import { SHELF_IDS, SHELVES, shelfEmptyText, type ShelfId } from '../lib/shelves';

function shelfQuery(id: ShelfId, pageSize: number) {
  const path = SHELVES[id].path;
  return {
    queryKey: queryKeys.shelves.shelf(id, pageSize),
    queryFn: async (): Promise<{ data: Array<Book | Series>; total: number }> => ok(api.GET(path, { params: { query: { pageSize } } })),
  };
}

function Shelf({ id }: { id: ShelfId }) {
  const { t, i18n } = useLingui();
  const shelf = SHELVES[id];
  const title = i18n._(shelf.title);
  const query = useQuery(shelfQuery(id, 20));
  const seesAll = seesEverything(useQuery(meQuery).data);
  const headingId = `shelf-${id}`;
  const total = query.data?.total ?? 0;
  return (
    <section className="shelf" aria-labelledby={headingId}>
      <div className="shelf-head">
        <h2 id={headingId}>{title}</h2>
        {query.data && total > 0 && (
          <Link to="/shelves/$shelf" params={{ shelf: id }} aria-label={t`See all: ${title}`}>
            <Trans>See all ({total})</Trans>
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
        <h1>
          <Trans>Home</Trans>
        </h1>
        <p className="empty">
          {seesAll ? <Trans>No libraries yet.</Trans> : <Trans>No library you can see yet.</Trans>}{' '}
          {canAddLibraries ? (
            <Trans>
              <Link to="/admin/libraries">Add one under Administration → Libraries</Link>: pick the folder on the server that holds your
              comics or books.
            </Trans>
          ) : (
            <Trans>An administrator adds libraries, and decides which libraries and ratings your account shows.</Trans>
          )}
        </p>
      </div>
    );
  }
  return (
    <div className="page">
      <h1 className="visually-hidden">
        <Trans>Home</Trans>
      </h1>
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
  const { i18n } = useLingui();
  const { shelf: id } = shelfRouteApi.useParams();
  const shelf = SHELVES[id];
  const query = useQuery(shelfQuery(id, 500));
  const seesAll = seesEverything(useQuery(meQuery).data);
  const shown = query.data?.data.length ?? 0;
  const total = query.data?.total ?? 0;
  return (
    <div className="page">
      <h1>{i18n._(shelf.title)}</h1>
      <ErrorMessage error={query.error} />
      {query.isPending && (
        <p>
          <Trans>Loading…</Trans>
        </p>
      )}
      {query.data?.data.length === 0 && <p className="empty">{shelfEmptyText(id, seesAll)}</p>}
      {query.data && query.data.data.length > 0 && (
        <ul className="grid">
          {query.data.data.map((item) => (
            <li key={item.id}>{shelf.kind === 'series' ? <SeriesCard series={item as Series} /> : <BookCard book={item as Book} />}</li>
          ))}
        </ul>
      )}
      {shown < total && (
        <p className="hint">
          <Trans>
            Showing the first {shown} of {total}.
          </Trans>
        </p>
      )}
    </div>
  );
}
