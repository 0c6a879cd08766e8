import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import { useId, useRef, useState, type ReactNode } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { ErrorMessage } from './ErrorView';

interface Named {
  id: string;
  name: string;
  shared?: boolean;
}
interface Page<L> {
  data: L[];
}

/**
 * "Add to collection…" / "Add to read list…": a button opening a dialog (the selection bar stays its size), pick one of the caller's lists (what is added
 * goes at its end) or name a new one. The lists already holding the thing (when one thing is added) are listed as
 * links. The caller gives the lists' query, the holding lists, and the two requests; this is the form around them.
 */
export function AddToList<L extends Named, P extends Page<L>, K extends QueryKey>({
  noun,
  what,
  listsQuery,
  holding,
  holdingError,
  add,
  create,
  canShare = false,
  invalidate,
  linkTo,
}: {
  /** Which lists: "collection" or "read list" (each with its own sentences, for languages whose words agree with it). */
  noun: 'collection' | 'read list';
  /** What is added, as the add button names it: a title, or "3 series". */
  what: string;
  listsQuery: UseQueryOptions<P, Error, P, K>;
  holding?: L[];
  holdingError?: unknown;
  add(listId: string): Promise<L>;
  /** A new list may be shared with everyone, an existing shared one chosen, with canShare (collections-write, read-lists-write); shared: the box was ticked. */
  create(name: string, shared: boolean): Promise<L>;
  canShare?: boolean;
  /** Every query of these lists, refreshed after a change. */
  invalidate: QueryKey;
  linkTo(list: Named): ReactNode;
}) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const lists = useQuery({ ...listsQuery, enabled: open });
  const [chosen, setChosen] = useState('');
  const [newName, setNewName] = useState('');
  const [shared, setShared] = useState(false);
  const [done, setDone] = useState<Named | null>(null);
  const selectId = useId();
  const nameId = useId();
  const sharedId = useId();
  const closeButton = useRef<HTMLButtonElement>(null);
  const finished = async (list: L) => {
    setDone({ id: list.id, name: list.name });
    // The button used is disabled now (its field emptied): focus stays in the dialog, on Close.
    closeButton.current?.focus();
    await queryClient.invalidateQueries({ queryKey: invalidate });
  };
  const addTo = useMutation({
    mutationFn: add,
    onSuccess: async (list) => {
      setChosen('');
      await finished(list);
    },
  });
  const make = useMutation({
    mutationFn: (name: string) => create(name, canShare && shared),
    onSuccess: async (list) => {
      setNewName('');
      await finished(list);
    },
  });
  const heldIds = new Set(holding?.map((l) => l.id) ?? []);
  // A shared list is offered only to those who may change shared lists (canShare).
  const choices = (lists.data?.data ?? []).filter((l) => !heldIds.has(l.id) && (canShare || !l.shared));
  const addedTo = done ? linkTo(done) : null;
  const busy = addTo.isPending || make.isPending;
  const heldCount = holding?.length ?? 0;
  const words =
    noun === 'collection'
      ? {
          addTo: t`Add to collection…`,
          heading: t`Add ${what} to a collection`,
          loading: t`Loading collections…`,
          none: t`No collection to add to yet: name a new one below.`,
          label: t`Collection`,
          newOne: t`New collection`,
        }
      : {
          addTo: t`Add to read list…`,
          heading: t`Add ${what} to a read list`,
          loading: t`Loading read lists…`,
          none: t`No read list to add to yet: name a new one below.`,
          label: t`Read list`,
          newOne: t`New read list`,
        };
  return (
    <DialogTrigger onOpenChange={setOpen}>
      <Button className="fold-button add-to-button">
        {words.addTo}
        {heldCount > 0 && (
          <span className="hint">
            {' '}
            <Trans>(in {heldCount})</Trans>
          </span>
        )}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="app-dialog add-to-dialog">
            {({ close }) => (
              <div className="stack">
                <Heading slot="title">{words.heading}</Heading>
                {holding && holding.length > 0 && (
                  <p className="hint">
                    <Trans>In:</Trans>{' '}
                    {holding.map((l, i) => (
                      <span key={l.id}>
                        {i > 0 && ', '}
                        {linkTo(l)}
                      </span>
                    ))}
                  </p>
                )}
                <ErrorMessage error={lists.error ?? holdingError} />
                {lists.isPending && open && (
                  <p className="hint" role="status">
                    {words.loading}
                  </p>
                )}
                {lists.isSuccess && choices.length === 0 && <p className="hint">{words.none}</p>}
                {choices.length > 0 && (
                  <form
                    className="inline"
                    onSubmit={(e) => {
                      e.preventDefault();
                      if (chosen) addTo.mutate(chosen);
                    }}
                  >
                    <label htmlFor={selectId} className="inline-label">
                      {words.label}
                    </label>
                    <select id={selectId} className="grow" value={chosen} onChange={(e) => setChosen(e.target.value)}>
                      <option value="">{t`Choose…`}</option>
                      {choices.map((l) => (
                        <option key={l.id} value={l.id}>
                          {l.name}
                        </option>
                      ))}
                    </select>
                    <button type="submit" disabled={!chosen || busy}>
                      <Trans>Add {what}</Trans>
                    </button>
                  </form>
                )}
                <form
                  className="stack"
                  onSubmit={(e) => {
                    e.preventDefault();
                    if (newName.trim()) make.mutate(newName.trim());
                  }}
                >
                  <div className="inline">
                    <label htmlFor={nameId} className="inline-label">
                      {words.newOne}
                    </label>
                    <input id={nameId} value={newName} onChange={(e) => setNewName(e.target.value)} placeholder={t`Name`} />
                  </div>
                  <div className="inline">
                    {canShare && (
                      <label htmlFor={sharedId} className="choice">
                        <input id={sharedId} type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} />
                        <span>
                          <Trans>Shared with everyone</Trans>
                        </span>
                      </label>
                    )}
                    <button type="submit" disabled={!newName.trim() || busy}>
                      <Trans>Create and add</Trans>
                    </button>
                  </div>
                </form>
                {done && (
                  <p className="hint" role="status">
                    <Trans>Added to {addedTo}.</Trans>
                  </p>
                )}
                <ErrorMessage error={addTo.error ?? make.error} />
                <div className="actions">
                  <button type="button" ref={closeButton} onClick={close}>
                    <Trans>Close</Trans>
                  </button>
                </div>
              </div>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
