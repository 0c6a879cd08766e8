import { Trans } from '@lingui/react/macro';
import type { QueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';
import { queryKeys } from '../../api/query-keys';

/** A <dialog> shown as modal once mounted: the metadata dialogs are mounted when asked for, and closed by it. */
export function useModal(): RefObject<HTMLDialogElement | null> {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  return dialog;
}

/**
 * The frame of the metadata dialogs: a modal <dialog> named by its heading, holding a form whose submit (Enter
 * included) calls `onSubmit`, and a row of `actions` ending with the button that closes it.
 */
export function FormDialog({
  dialog,
  className,
  heading,
  onSubmit,
  onClose,
  actions,
  closeLabel,
  children,
}: {
  /** From useModal: the caller closes the dialog with it too. */
  dialog: RefObject<HTMLDialogElement | null>;
  className: string;
  heading: ReactNode;
  onSubmit(): void;
  onClose(): void;
  actions: ReactNode;
  /** The closing button's text: "Close" unless said. */
  closeLabel?: ReactNode;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    <dialog ref={dialog} className={`app-dialog ${className}`} aria-labelledby={titleId} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <h2 id={titleId}>{heading}</h2>
        {children}
        <div className="actions">
          {actions}
          <button type="button" onClick={() => dialog.current?.close()}>
            {closeLabel ?? <Trans>Close</Trans>}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** After a metadata change: every series, book and shelf on screen may show what changed (titles, numbers, order). */
export function refreshAfterEdit(queryClient: QueryClient): Promise<unknown> {
  return Promise.all(
    [queryKeys.series.all, queryKeys.books.all, queryKeys.shelves.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
  );
}
