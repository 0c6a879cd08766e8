import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery, readListsQuery } from '../../api/queries';
import { AddToList } from '../../components/AddToList';

/** Which kind of list AddToList offers (a value it chooses its own words by, not a text shown). */
const LIST_KIND = 'read list';

/**
 * "Add to read list…" of the book page and of the library grid's selection of books: one of the read lists (the
 * books go at its end) or a new one. For one book, the read lists already holding it are listed as links.
 */
export function AddToReadList({ bookIds, title }: { bookIds: string[]; title: string }) {
  const single = bookIds.length === 1 ? bookIds[0] : undefined;
  const holding = useQuery({
    queryKey: queryKeys.readLists.ofBook(single ?? ''),
    queryFn: () => ok(api.GET('/api/v1/books/{id}/read-lists', { params: { path: { id: single as string }, query: { pageSize: 500 } } })),
    enabled: !!single,
  });
  const canShare = useQuery(meQuery).data?.permissions.includes('read-lists-write') === true;
  return (
    <AddToList
      noun={LIST_KIND}
      what={title}
      listsQuery={readListsQuery}
      holding={holding.data?.data}
      holdingError={holding.error}
      add={(id) => ok(api.POST('/api/v1/read-lists/{id}/books', { params: { path: { id } }, body: { book_ids: bookIds } }))}
      canShare={canShare}
      create={(name, shared) => ok(api.POST('/api/v1/read-lists', { body: { name, book_ids: bookIds, shared } }))}
      invalidate={queryKeys.readLists.all}
      linkTo={(l) => (
        <Link to="/read-lists/$readListId" params={{ readListId: l.id }}>
          {l.name}
        </Link>
      )}
    />
  );
}
