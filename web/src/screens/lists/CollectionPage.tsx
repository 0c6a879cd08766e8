import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { SeriesCard } from '../../components/Cards';
import { ErrorMessage } from '../../components/ErrorView';
import { plural } from '../../lib/format';

const route = getRouteApi('/app/collections/$collectionId');

/** One collection: its series in the collection's order (by name when it is not ordered). */
export function CollectionPage() {
  const { collectionId } = route.useParams();
  const collection = useQuery({
    queryKey: queryKeys.collections.detail(collectionId),
    queryFn: () => ok(api.GET('/api/v1/collections/{id}', { params: { path: { id: collectionId } } })),
  });
  const series = useQuery({
    queryKey: queryKeys.collections.series(collectionId),
    queryFn: () => ok(api.GET('/api/v1/collections/{id}/series', { params: { path: { id: collectionId }, query: { pageSize: 500 } } })),
  });
  if (collection.error) throw collection.error;
  if (collection.isPending) return <p className="page">Loading…</p>;
  const c = collection.data;
  return (
    <div className="page">
      <p className="eyebrow">
        <Link to="/collections">Collections</Link>
      </p>
      <h1>{c.name}</h1>
      <p className="meta-line">
        {[plural(c.series_count, 'series', 'series'), c.ordered ? 'in its own order' : 'by name', c.shared ? 'shared' : 'yours alone'].join(
          ' · ',
        )}
      </p>
      {c.summary && <p className="summary">{c.summary}</p>}
      <ErrorMessage error={series.error} />
      {series.data?.data.length === 0 && <p className="empty">No series in this collection that you can see.</p>}
      {series.data && series.data.data.length > 0 && (
        <ol className="grid" aria-label={`Series of ${c.name}`}>
          {series.data.data.map((s) => (
            <li key={s.id}>
              <SeriesCard series={s} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
