import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { collectionsQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';

/**
 * "Add to collection…" of the series page (and of a selection of series): folded under one line, pick one of the
 * caller's collections or name a new one. The collections already holding the series are listed as links.
 */
export function AddToCollection({ seriesIds, title }: { seriesIds: string[]; title: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const collections = useQuery({ ...collectionsQuery, enabled: open });
  const single = seriesIds.length === 1 ? seriesIds[0] : undefined;
  const holding = useQuery({
    queryKey: queryKeys.collections.ofSeries(single ?? ''),
    queryFn: () => ok(api.GET('/api/v1/series/{id}/collections', { params: { path: { id: single as string }, query: { pageSize: 500 } } })),
    enabled: !!single,
  });
  const [chosen, setChosen] = useState('');
  const [newName, setNewName] = useState('');
  const [done, setDone] = useState<{ id: string; name: string } | null>(null);
  const selectId = useId();
  const nameId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.collections.all });
  const add = useMutation({
    mutationFn: (id: string) =>
      ok(api.POST('/api/v1/collections/{id}/series', { params: { path: { id } }, body: { series_ids: seriesIds } })),
    onSuccess: async (c) => {
      setDone({ id: c.id, name: c.name });
      setChosen('');
      await refresh();
    },
  });
  const create = useMutation({
    mutationFn: (name: string) =>
      ok(api.POST('/api/v1/collections', { body: { name, series_ids: seriesIds, ordered: false, summary: '', shared: false } })),
    onSuccess: async (c) => {
      setDone({ id: c.id, name: c.name });
      setNewName('');
      await refresh();
    },
  });
  const heldIds = new Set(holding.data?.data.map((c) => c.id) ?? []);
  const choices = (collections.data?.data ?? []).filter((c) => !heldIds.has(c.id));
  const busy = add.isPending || create.isPending;
  return (
    <details className="sharing-labels add-to" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Add to collection…
        {holding.data && holding.data.data.length > 0 && <span className="hint"> (in {holding.data.data.length})</span>}
      </summary>
      {holding.data && holding.data.data.length > 0 && (
        <p className="hint">
          In:{' '}
          {holding.data.data.map((c, i) => (
            <span key={c.id}>
              {i > 0 && ', '}
              <Link to="/collections/$collectionId" params={{ collectionId: c.id }}>
                {c.name}
              </Link>
            </span>
          ))}
        </p>
      )}
      <ErrorMessage error={collections.error ?? holding.error} />
      {collections.isPending && open && <p className="hint">Loading collections…</p>}
      {choices.length > 0 && (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen) add.mutate(chosen);
          }}
        >
          <label htmlFor={selectId} className="inline-label">
            Collection
          </label>
          <select id={selectId} value={chosen} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose…</option>
            {choices.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
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
          New collection
        </label>
        <input id={nameId} value={newName} onChange={(e) => setNewName(e.target.value)} placeholder="Name" />
        <button type="submit" disabled={!newName.trim() || busy}>
          Create and add
        </button>
      </form>
      {done && (
        <p className="hint" role="status">
          Added to{' '}
          <Link to="/collections/$collectionId" params={{ collectionId: done.id }}>
            {done.name}
          </Link>
          .
        </p>
      )}
      <ErrorMessage error={add.error ?? create.error} />
    </details>
  );
}
