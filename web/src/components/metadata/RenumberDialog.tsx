import { plural } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueries, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { bookLabel } from '../../lib/format';
import { ErrorMessage } from '../ErrorView';
import { FormDialog, refreshAfterEdit, useModal } from './dialog';
import { renumbered } from './renumber';

type Book = components['schemas']['Book'];

/**
 * "Renumber…" of the grid's selection of books: the books in the grid's order, which Move up / Move down change,
 * get start, start + step, … (number and sort number, locked) in one request and one history entry, which Undo here
 * takes back. `known` holds the selected books the grid has loaded; the others are fetched.
 */
export function RenumberDialog({ ids, known, onClose }: { ids: string[]; known: ReadonlyMap<string, Book>; onClose(): void }) {
  const dialog = useModal();
  const queryClient = useQueryClient();
  const { t } = useLingui();
  const startId = useId();
  const stepId = useId();
  const rowId = useId();
  const [order, setOrder] = useState(ids);
  const [start, setStart] = useState('1');
  const [step, setStep] = useState('1');
  // After a move, focus stays on the moved book's button (the row is moved in the page, which drops focus).
  const [moved, setMoved] = useState<{ id: string; up: boolean } | null>(null);
  const fetched = useQueries({
    queries: ids
      .filter((id) => !known.has(id))
      .map((id) => ({
        queryKey: queryKeys.books.detail(id),
        queryFn: () => ok(api.GET('/api/v1/books/{id}', { params: { path: { id } } })),
      })),
  });
  const books = new Map(known);
  for (const q of fetched) if (q.data) books.set(q.data.id, q.data);
  const numbers = renumbered(order.length, start, step);

  const undo = useMutation({
    mutationFn: (entryId: string) => ok(api.POST('/api/v1/history/{entry_id}/undo', { params: { path: { entry_id: entryId } } })),
    onSuccess: () => refreshAfterEdit(queryClient),
  });
  const apply = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/books/renumber', { body: { ids: order, start: Number(start), step: Number(step) } })),
    onMutate: () => undo.reset(),
    onSuccess: () => refreshAfterEdit(queryClient),
  });

  useEffect(() => {
    if (!moved) return;
    const index = order.indexOf(moved.id);
    const up = moved.up ? index > 0 : index === order.length - 1;
    document.getElementById(`${rowId}-${up ? 'up' : 'down'}-${moved.id}`)?.focus();
  }, [moved, order, rowId]);

  const move = (index: number, up: boolean) => {
    const to = up ? index - 1 : index + 1;
    const next = [...order];
    [next[index], next[to]] = [next[to]!, next[index]!];
    setOrder(next);
    setMoved({ id: order[index]!, up });
  };
  const labelOf = (id: string) => {
    const b = books.get(id);
    return b ? bookLabel(b) : t`Loading…`;
  };
  const done = apply.data;
  const entryId = done?.entry_id ?? null;
  const count = order.length;
  const updated = done?.updated ?? 0;

  return (
    <FormDialog
      dialog={dialog}
      className="renumber"
      heading={<Plural value={count} one="Renumber # book" other="Renumber # books" />}
      onSubmit={() => numbers && apply.mutate()}
      onClose={onClose}
      actions={
        <>
          <button type="submit" className="primary" disabled={!numbers || apply.isPending}>
            {apply.isPending ? <Trans>Renumbering…</Trans> : <Trans>Renumber</Trans>}
          </button>
          {entryId && !undo.isSuccess && (
            <button type="button" disabled={undo.isPending} onClick={() => undo.mutate(entryId)}>
              <Trans>Undo</Trans>
            </button>
          )}
        </>
      }
    >
      <p className="hint">
        <Trans>The books get these numbers in this order (their sort numbers too); the numbers are locked, so scans keep them.</Trans>
      </p>
      <div className="inline">
        <div className="field">
          <label htmlFor={startId}>
            <Trans>Start at</Trans>
          </label>
          <input id={startId} type="number" step="any" value={start} onChange={(e) => setStart(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={stepId}>
            <Trans>Step</Trans>
          </label>
          <input id={stepId} type="number" step="any" min="0.001" value={step} onChange={(e) => setStep(e.target.value)} />
        </div>
      </div>
      {!numbers && (
        <p className="error-text" role="alert">
          <Trans>The start must be a number between -1,000,000 and 1,000,000, and the step a number from 0.001 to 1,000,000.</Trans>
        </p>
      )}
      <ol className="renumber-list" aria-label={t`Books in their new order`}>
        {order.map((id, i) => {
          const label = labelOf(id);
          return (
            <li key={id}>
              <span className="renumber-number">{numbers ? `#${numbers[i]}` : ''}</span>
              <span className="renumber-title">{label}</span>
              <button type="button" id={`${rowId}-up-${id}`} className="small" disabled={i === 0} onClick={() => move(i, true)}>
                <Trans>
                  Move up<span className="visually-hidden"> {label}</span>
                </Trans>
              </button>
              <button
                type="button"
                id={`${rowId}-down-${id}`}
                className="small"
                disabled={i === order.length - 1}
                onClick={() => move(i, false)}
              >
                <Trans>
                  Move down<span className="visually-hidden"> {label}</span>
                </Trans>
              </button>
            </li>
          );
        })}
      </ol>
      <ErrorMessage error={apply.error ?? undo.error} />
      {done && (
        <p className="hint" role="status">
          {undo.isSuccess
            ? t`Undone: the books have their numbers back.`
            : entryId
              ? plural(updated, { one: 'Renumbered # book.', other: 'Renumbered # books.' })
              : t`Nothing changed: the books already had these numbers.`}
        </p>
      )}
    </FormDialog>
  );
}
