import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useId } from 'react';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { SeriesCard } from '../../components/Cards';
import { ErrorMessage } from '../../components/ErrorView';
import { ListManage } from './ListManage';

const route = getRouteApi('/app/collections/$collectionId');

/** `ids` with the one at `from` moved to `to`. */
function moved(ids: string[], from: number, to: number): string[] {
  const next = [...ids];
  const [id] = next.splice(from, 1);
  next.splice(to, 0, id as string);
  return next;
}

/**
 * One collection: its series in the collection's order (by name when it is not ordered). Who may change it removes
 * series, moves them up and down (an ordered collection), shares it (with libraries-write) and deletes it.
 */
export function CollectionPage() {
  const { t } = useLingui();
  const { collectionId } = route.useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const orderedId = useId();
  const collection = useQuery({
    queryKey: queryKeys.collections.detail(collectionId),
    queryFn: () => ok(api.GET('/api/v1/collections/{id}', { params: { path: { id: collectionId } } })),
  });
  const series = useQuery({
    queryKey: queryKeys.collections.series(collectionId),
    queryFn: () => ok(api.GET('/api/v1/collections/{id}/series', { params: { path: { id: collectionId }, query: { pageSize: 500 } } })),
  });
  const permissions = useQuery(meQuery).data?.permissions ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.collections.all });
  const update = useMutation({
    mutationFn: (body: { shared?: boolean; ordered?: boolean }) =>
      ok(api.PATCH('/api/v1/collections/{id}', { params: { path: { id: collectionId } }, body })),
    onSettled: refresh,
  });
  const reorder = useMutation({
    mutationFn: (seriesIds: string[]) =>
      ok(api.PUT('/api/v1/collections/{id}/series/order', { params: { path: { id: collectionId } }, body: { series_ids: seriesIds } })),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (seriesId: string) =>
      ok(api.DELETE('/api/v1/collections/{id}/series/{series_id}', { params: { path: { id: collectionId, series_id: seriesId } } })),
    onSettled: refresh,
  });
  const destroy = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/collections/{id}', { params: { path: { id: collectionId } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: queryKeys.collections.detail(collectionId) });
      await navigate({ to: '/collections' });
      await refresh();
    },
  });
  if (collection.error) throw collection.error;
  if (collection.isPending)
    return (
      <p className="page">
        <Trans>Loading…</Trans>
      </p>
    );
  const c = collection.data;
  // A private collection is its owner's alone, who changes it; a shared one needs collections-write (-delete to delete).
  const mayShare = permissions.includes('collections-write');
  const canEdit = !c.shared || mayShare;
  const canDelete = !c.shared || permissions.includes('collections-delete');
  const busy = update.isPending || reorder.isPending || remove.isPending || destroy.isPending;
  const shown = series.data?.data ?? [];
  const ids = shown.map((s) => s.id);
  const seriesCount = c.series_count;
  const name = c.name;
  return (
    <div className="page">
      <p className="eyebrow">
        <Link to="/collections">
          <Trans>Collections</Trans>
        </Link>
      </p>
      <h1>{c.name}</h1>
      <p className="meta-line">
        {[
          plural(seriesCount, { one: '# series', other: '# series' }),
          c.ordered ? t`in its own order` : t`by name`,
          c.shared ? t({ message: 'shared', context: 'list' }) : t`yours alone`,
        ].join(' · ')}
      </p>
      {c.summary && <p className="summary">{c.summary}</p>}
      {(canEdit || canDelete) && (
        <ListManage
          kind="collection"
          name={c.name}
          shared={c.shared}
          canShare={canEdit && mayShare}
          onShare={(shared) => update.mutate({ shared })}
          canDelete={canDelete}
          onDelete={() => destroy.mutate()}
          busy={busy}
        >
          {canEdit && (
            <label htmlFor={orderedId} className="inline-label">
              <input
                id={orderedId}
                type="checkbox"
                className="checkbox"
                checked={c.ordered}
                disabled={busy}
                onChange={(e) => update.mutate({ ordered: e.target.checked })}
              />
              <Trans>Keep its own order (else by name)</Trans>
            </label>
          )}
        </ListManage>
      )}
      <ErrorMessage error={series.error ?? update.error ?? reorder.error ?? remove.error ?? destroy.error} />
      {series.data?.data.length === 0 && (
        <p className="empty">
          <Trans>No series in this collection that you can see.</Trans>
        </p>
      )}
      {canEdit && c.ordered && shown.length > 1 && (
        <p className="hint">
          <Trans>Move a series up or down to change the order.</Trans>
        </p>
      )}
      {shown.length > 0 && (
        <ol className="grid" aria-label={t`Series of ${name}`}>
          {shown.map((s, i) => {
            const label = s.metadata.title;
            return (
              <li key={s.id} data-testid="collection-item">
                <SeriesCard series={s} />
                {canEdit && (
                  <div className="row-actions">
                    {c.ordered && (
                      <>
                        <button
                          type="button"
                          className="small"
                          disabled={busy || i === 0}
                          onClick={() => reorder.mutate(moved(ids, i, i - 1))}
                        >
                          <Trans>
                            Move up<span className="visually-hidden">: {label}</span>
                          </Trans>
                        </button>
                        <button
                          type="button"
                          className="small"
                          disabled={busy || i === shown.length - 1}
                          onClick={() => reorder.mutate(moved(ids, i, i + 1))}
                        >
                          <Trans>
                            Move down<span className="visually-hidden">: {label}</span>
                          </Trans>
                        </button>
                      </>
                    )}
                    <button type="button" className="small" disabled={busy} onClick={() => remove.mutate(s.id)}>
                      <Trans>
                        Remove<span className="visually-hidden">: {label}</span>
                      </Trans>
                    </button>
                  </div>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
