import { useId, type ReactNode } from 'react';

/**
 * The settings row of a collection or read list page, for who may change it: "Shared with everyone" (for those who
 * may share: libraries-write), what the caller adds (a collection's "Keep its own order"), and Delete (after a
 * confirmation; what the list holds stays in the library).
 */
export function ListManage({
  noun,
  name,
  shared,
  canShare,
  onShare,
  canDelete,
  onDelete,
  busy,
  children,
}: {
  noun: string;
  name: string;
  shared: boolean;
  canShare: boolean;
  onShare(shared: boolean): void;
  canDelete: boolean;
  onDelete(): void;
  busy: boolean;
  children?: ReactNode;
}) {
  const sharedId = useId();
  return (
    <div className="list-manage" role="group" aria-label={`Manage the ${noun}`}>
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
          Shared with everyone
        </label>
      )}
      {children}
      {canDelete && (
        <button
          type="button"
          className="small danger"
          disabled={busy}
          onClick={() => {
            if (window.confirm(`Delete the ${noun} “${name}”? What it holds stays in the library.`)) onDelete();
          }}
        >
          Delete {noun}
        </button>
      )}
    </div>
  );
}
