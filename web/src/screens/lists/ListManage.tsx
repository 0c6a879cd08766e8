import { Trans, useLingui } from '@lingui/react/macro';
import { useId, type ReactNode } from 'react';

/**
 * The settings row of a collection or read list page, for who may change it: "Shared with everyone" (for those who
 * may share: libraries-write), what the caller adds (a collection's "Keep its own order"), and Delete (after a
 * confirmation; what the list holds stays in the library).
 */
export function ListManage({
  kind,
  name,
  shared,
  canShare,
  onShare,
  canDelete,
  onDelete,
  busy,
  children,
}: {
  /** Which kind of list: each has its own whole sentences (a translation may need the noun's gender or case). */
  kind: 'collection' | 'read-list';
  name: string;
  shared: boolean;
  canShare: boolean;
  onShare(shared: boolean): void;
  canDelete: boolean;
  onDelete(): void;
  busy: boolean;
  children?: ReactNode;
}) {
  const { t } = useLingui();
  const sharedId = useId();
  const collection = kind === 'collection';
  const confirmation = collection
    ? t`Delete the collection “${name}”? What it holds stays in the library.`
    : t`Delete the read list “${name}”? What it holds stays in the library.`;
  return (
    <div className="list-manage" role="group" aria-label={collection ? t`Manage the collection` : t`Manage the read list`}>
      {canShare && (
        <label htmlFor={sharedId} className="inline-label">
          <input
            id={sharedId}
            type="checkbox"
            className="checkbox"
            checked={shared}
            disabled={busy}
            onChange={(e) => onShare(e.target.checked)}
          />
          <Trans>Shared with everyone</Trans>
        </label>
      )}
      {children}
      {canDelete && (
        <button
          type="button"
          className="small danger"
          disabled={busy}
          onClick={() => {
            if (window.confirm(confirmation)) onDelete();
          }}
        >
          {collection ? <Trans>Delete collection</Trans> : <Trans>Delete read list</Trans>}
        </button>
      )}
    </div>
  );
}
