import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { readListsQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';

/**
 * "Add to read list…" of the book page: folded under one line, pick one of the read lists (the book goes at its end)
 * or name a new one. The read lists already holding the book are listed as links.
 */
export function AddToReadList({ bookId, title }: { bookId: string; title: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const lists = useQuery({ ...readListsQuery, enabled: open });
  const holding = useQuery({
    queryKey: queryKeys.readLists.ofBook(bookId),
    queryFn: () => ok(api.GET('/api/v1/books/{id}/read-lists', { params: { path: { id: bookId }, query: { pageSize: 500 } } })),
  });
  const [chosen, setChosen] = useState('');
  const [newName, setNewName] = useState('');
  const [done, setDone] = useState<{ id: string; name: string } | null>(null);
  const selectId = useId();
  const nameId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.readLists.all });
  const add = useMutation({
    mutationFn: (id: string) => ok(api.POST('/api/v1/read-lists/{id}/books', { params: { path: { id } }, body: { book_ids: [bookId] } })),
    onSuccess: async (list) => {
      setDone({ id: list.id, name: list.name });
      setChosen('');
      await refresh();
    },
  });
  const create = useMutation({
    mutationFn: (name: string) => ok(api.POST('/api/v1/read-lists', { body: { name, book_ids: [bookId] } })),
    onSuccess: async (list) => {
      setDone({ id: list.id, name: list.name });
      setNewName('');
      await refresh();
    },
  });
  const heldIds = new Set(holding.data?.data.map((l) => l.id) ?? []);
  const choices = (lists.data?.data ?? []).filter((l) => !heldIds.has(l.id));
  const busy = add.isPending || create.isPending;
  return (
    <details className="sharing-labels add-to" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Add to read list…</summary>
      {holding.data && holding.data.data.length > 0 && (
        <p className="hint">
          In:{' '}
          {holding.data.data.map((l, i) => (
            <span key={l.id}>
              {i > 0 && ', '}
              <Link to="/read-lists/$readListId" params={{ readListId: l.id }}>
                {l.name}
              </Link>
            </span>
          ))}
        </p>
      )}
      <ErrorMessage error={lists.error ?? holding.error} />
      {lists.isPending && open && <p className="hint">Loading read lists…</p>}
      {choices.length > 0 && (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen) add.mutate(chosen);
          }}
        >
          <label htmlFor={selectId} className="inline-label">
            Read list
          </label>
          <select id={selectId} value={chosen} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose…</option>
            {choices.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
          <button type="submit" disabled={!chosen || busy}>
            Add {title}
          </button>
        </form>
      )}
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (newName.trim()) create.mutate(newName.trim());
        }}
      >
        <label htmlFor={nameId} className="inline-label">
          New read list
        </label>
        <input id={nameId} value={newName} onChange={(e) => setNewName(e.target.value)} placeholder="Name" />
        <button type="submit" disabled={!newName.trim() || busy}>
          Create and add
        </button>
      </form>
      {done && (
        <p className="hint" role="status">
          Added to{' '}
          <Link to="/read-lists/$readListId" params={{ readListId: done.id }}>
            {done.name}
          </Link>
          .
        </p>
      )}
      <ErrorMessage error={add.error ?? create.error} />
    </details>
  );
}
