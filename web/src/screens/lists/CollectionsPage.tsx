import { Trans } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useId, useState, type FormEvent } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { api, ok } from '../../api/client';
import { collectionsQuery, meQuery } from '../../api/queries';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { CollectionCard } from './ListCards';

/** Every collection the caller sees (its own and the shared ones), as a grid of covers; "New collection" starts one. */
export function CollectionsPage() {
  const collections = useQuery(collectionsQuery);
  return (
    <div className="page">
      <div className="grid-head">
        <h1>
          <Trans>Collections</Trans>
        </h1>
        <NewCollection />
      </div>
      <ErrorMessage error={collections.error} />
      {collections.isPending && (
        <p role="status">
          <Trans>Loading collections…</Trans>
        </p>
      )}
      {collections.data?.data.length === 0 && (
        <p className="empty">
          <Trans>No collections yet. "New collection" starts one; on a series page, "Add to collection…" adds the series to one.</Trans>
        </p>
      )}
      {collections.data && collections.data.data.length > 0 && (
        <ul className="grid">
          {collections.data.data.map((c) => (
            <li key={c.id}>
              <CollectionCard collection={c} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** "New collection": a name, a summary, shared or not (with collections-write); opens the new, empty collection. */
function NewCollection() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const canShare = useQuery(meQuery).data?.permissions.includes('collections-write') === true;
  const [name, setName] = useState('');
  const [summary, setSummary] = useState('');
  const [shared, setShared] = useState(false);
  const [ordered, setOrdered] = useState(false);
  const nameId = useId();
  const summaryId = useId();
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/collections', {
          body: { name: name.trim(), summary: summary.trim(), ordered, shared: canShare && shared, series_ids: [] },
        }),
      ),
    onSuccess: async (collection) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.collections.all });
      setName('');
      setSummary('');
      void navigate({ to: '/collections/$collectionId', params: { collectionId: collection.id } });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) create.mutate();
  };
  return (
    <DialogTrigger>
      <Button className="fold-button primary-fold">
        <Trans>New collection</Trans>
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="app-dialog add-to-dialog">
            {({ close }) => (
              <form className="stack" onSubmit={submit}>
                <Heading slot="title">
                  <Trans>New collection</Trans>
                </Heading>
                <label htmlFor={nameId}>
                  <Trans>Name</Trans>
                  <input id={nameId} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
                </label>
                <label htmlFor={summaryId}>
                  <Trans>Summary (optional)</Trans>
                  <textarea id={summaryId} rows={3} value={summary} onChange={(e) => setSummary(e.target.value)} />
                </label>
                <label className="choice">
                  <input type="checkbox" checked={ordered} onChange={(e) => setOrdered(e.target.checked)} />
                  <span>
                    <Trans>Keep the series in the order they are added (else sorted by name)</Trans>
                  </span>
                </label>
                {canShare && (
                  <label className="choice">
                    <input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} />
                    <span>
                      <Trans>Shared with everyone</Trans>
                    </span>
                  </label>
                )}
                <p className="hint">
                  <Trans>Series are added from a series page or from a library&apos;s selection, with "Add to collection…".</Trans>
                </p>
                <ErrorMessage error={create.error} />
                <div className="actions">
                  <button type="submit" className="primary" disabled={!name.trim() || create.isPending}>
                    {create.isPending ? <Trans>Creating…</Trans> : <Trans>Create collection</Trans>}
                  </button>
                  <button type="button" onClick={close}>
                    <Trans>Cancel</Trans>
                  </button>
                </div>
              </form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
