import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { collectionsQuery, meQuery } from '../../api/queries';
import { AddToList } from '../../components/AddToList';

/**
 * "Add to collection…" of the series page and of the library grid's selection: one of the caller's collections or a
 * new one. For one series, the collections already holding it are listed as links.
 */
export function AddToCollection({ seriesIds, title }: { seriesIds: string[]; title: string }) {
  const single = seriesIds.length === 1 ? seriesIds[0] : undefined;
  const holding = useQuery({
    queryKey: queryKeys.collections.ofSeries(single ?? ''),
    queryFn: () => ok(api.GET('/api/v1/series/{id}/collections', { params: { path: { id: single as string }, query: { pageSize: 500 } } })),
    enabled: !!single,
  });
  const canShare = useQuery(meQuery).data?.permissions.includes('collections-write') === true;
  return (
    <AddToList
      noun="collection"
      what={title}
      listsQuery={collectionsQuery}
      holding={holding.data?.data}
      holdingError={holding.error}
      add={(id) => ok(api.POST('/api/v1/collections/{id}/series', { params: { path: { id } }, body: { series_ids: seriesIds } }))}
      canShare={canShare}
      create={(name, shared) =>
        ok(api.POST('/api/v1/collections', { body: { name, series_ids: seriesIds, ordered: false, summary: '', shared } }))
      }
      invalidate={queryKeys.collections.all}
      linkTo={(c) => (
        <Link to="/collections/$collectionId" params={{ collectionId: c.id }}>
          {c.name}
        </Link>
      )}
    />
  );
}
