import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { ProgressBar } from '../../components/ProgressBar';
import { bookLabel } from '../../lib/format';
import { DownloadNextButton } from '../../offline/DownloadButton';
import { ListManage } from './ListManage';
import { inBookOrder, ReadListItems } from './ReadListItems';

const route = getRouteApi('/app/read-lists/$readListId');

/**
 * One read list: its books in the list's order with the caller's progress through it (GET /read-lists/{id}/progress)
 * and "Read" / "Continue" for the first book not finished, opened in the reader as part of the list (its end offers
 * the list's next book).
 */
export function ReadListPage() {
  const { t } = useLingui();
  const { readListId } = route.useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const list = useQuery({
    queryKey: queryKeys.readLists.detail(readListId),
    queryFn: () => ok(api.GET('/api/v1/read-lists/{id}', { params: { path: { id: readListId } } })),
  });
  const progress = useQuery({
    queryKey: queryKeys.readLists.progress(readListId),
    queryFn: () => ok(api.GET('/api/v1/read-lists/{id}/progress', { params: { path: { id: readListId } } })),
  });
  const permissions = useQuery(meQuery).data?.permissions ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.readLists.all });
  const reorder = useMutation({
    mutationFn: (bookIds: string[]) =>
      ok(api.PUT('/api/v1/read-lists/{id}/books/order', { params: { path: { id: readListId } }, body: { book_ids: bookIds } })),
    onSuccess: (updated) => queryClient.setQueryData(queryKeys.readLists.detail(readListId), updated),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (bookId: string) =>
      ok(api.DELETE('/api/v1/read-lists/{id}/books/{book_id}', { params: { path: { id: readListId, book_id: bookId } } })),
    onSettled: refresh,
  });
  const share = useMutation({
    mutationFn: (shared: boolean) => ok(api.PATCH('/api/v1/read-lists/{id}', { params: { path: { id: readListId } }, body: { shared } })),
    onSettled: refresh,
  });
  const destroy = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/read-lists/{id}', { params: { path: { id: readListId } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: queryKeys.readLists.detail(readListId) });
      await navigate({ to: '/read-lists' });
      await refresh();
    },
  });

  if (list.error) throw list.error;
  if (list.isPending)
    return (
      <p className="page">
        <Trans>Loading…</Trans>
      </p>
    );
  const l = list.data;
  // A private list is its owner's alone, who changes it; a shared one needs read-lists-write (-delete to delete).
  const mayShare = permissions.includes('read-lists-write');
  const canEdit = !l.shared || mayShare;
  const canDelete = !l.shared || permissions.includes('read-lists-delete');
  const items = inBookOrder(l.items, reorder.isPending ? reorder.variables : undefined);
  const p = progress.data;
  const started = p ? p.read + p.in_progress > 0 : false;
  const bookCount = l.book_count;
  const missingCount = l.missing_count;
  const read = p?.read ?? 0;
  const total = p?.total ?? 0;
  const inProgress = p?.in_progress ?? 0;
  const nextLabel = p?.next_book ? bookLabel(p.next_book) : '';
  return (
    <div className="page">
      <p className="eyebrow">
        <Link to="/read-lists">
          <Trans>Read lists</Trans>
        </Link>
      </p>
      <h1>{l.name}</h1>
      <p className="meta-line">
        {[
          plural(bookCount, { one: '# book', other: '# books' }),
          missingCount > 0 ? plural(missingCount, { one: '# missing', other: '# missing' }) : '',
          l.shared ? t({ message: 'shared', context: 'list' }) : t`yours alone`,
        ]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {l.summary && <p className="summary">{l.summary}</p>}
      {(canEdit || canDelete) && (
        <ListManage
          kind="read-list"
          name={l.name}
          shared={l.shared}
          canShare={canEdit && mayShare}
          onShare={(shared) => share.mutate(shared)}
          canDelete={canDelete}
          onDelete={() => destroy.mutate()}
          busy={share.isPending || destroy.isPending}
        />
      )}
      <ErrorMessage error={share.error ?? destroy.error} />
      <ErrorMessage error={progress.error} />
      {p && p.total > 0 && (
        <>
          <ProgressBar
            value={p.read / p.total}
            label={plural(total, { one: `${read} of # books read`, other: `${read} of # books read` })}
          />
          <p className="hint">
            {inProgress > 0 ? (
              <Trans>
                {read} of {total} read, {inProgress} in progress
              </Trans>
            ) : (
              <Trans>
                {read} of {total} read
              </Trans>
            )}
          </p>
        </>
      )}
      <div className="actions">
        {p?.next_book && (
          <Link to="/books/$bookId/read" params={{ bookId: p.next_book.id }} search={{ readList: l.id }} className="button primary">
            {started ? <Trans>Continue: {nextLabel}</Trans> : <Trans context="verb">Read: {nextLabel}</Trans>}
          </Link>
        )}
        <DownloadNextButton
          kind="list"
          books={items.flatMap((i) => (i.book && i.book.page_count > 0 ? [{ id: i.book.id, unread: !i.book.progress?.is_completed }] : []))}
        />
        {p && p.total > 0 && !p.next_book && (
          <p className="hint">
            <Trans>You have read every book of this list.</Trans>
          </p>
        )}
      </div>
      <ErrorMessage error={reorder.error ?? remove.error} />
      {l.items.length === 0 && (
        <p className="empty">
          <Trans>This read list is empty. On a book page, "Add to read list…" adds to it.</Trans>
        </p>
      )}
      {canEdit && l.book_count > 1 && (
        <p className="hint">
          <Trans>Drag a book, or use its Move up and Move down buttons, to change the order.</Trans>
        </p>
      )}
      <ReadListItems
        listName={l.name}
        items={items}
        canEdit={canEdit}
        busy={reorder.isPending || remove.isPending}
        onReorder={(ids) => reorder.mutate(ids)}
        onRemove={(id) => remove.mutate(id)}
      />
    </div>
  );
}
