import { useEffect } from 'react';
import { bookLabel } from '../lib/format';
import type { Book } from './data';
import { ReaderDialog } from './ReaderDialog';
import type { Neighbours } from './use-neighbours';

/**
 * At the end (or before the start) of a book: on to the next book of the series, or of the read list the reader was
 * opened from (or back to the previous), or stay.
 */
export function EndPanel({
  at,
  book,
  previous,
  next,
  scope = { kind: 'series' },
  onClose,
  onOpen,
}: {
  at: 'end' | 'start';
  book: Book;
  previous: Book | undefined;
  next: Book | undefined;
  scope?: Neighbours['scope'];
  onClose(): void;
  onOpen(id: string): void;
}) {
  const target = at === 'end' ? next : previous;
  const of = scope.kind === 'read-list' ? `the read list “${scope.name}”` : 'the series';
  // Paging on past the end (→) goes on to the next book, as Continue does.
  useEffect(() => {
    if (at !== 'end' || !target) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'ArrowRight' || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      onOpen(target.id);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [at, target, onOpen]);
  return (
    <ReaderDialog
      title={at === 'end' ? `End of ${bookLabel(book)}` : `Start of ${bookLabel(book)}`}
      onClose={onClose}
      className="end-panel"
    >
      {target ? (
        <p>
          {at === 'end' ? `Next in ${of}: ` : `Previous in ${of}: `}
          <strong data-testid="neighbour-title">{bookLabel(target)}</strong>
        </p>
      ) : (
        <p>{at === 'end' ? `This is the last book of ${of}.` : `This is the first book of ${of}.`}</p>
      )}
      <div className="actions">
        {target && (
          <button type="button" className="primary" data-autofocus onClick={() => onOpen(target.id)}>
            {at === 'end' ? `Continue: ${bookLabel(target)}` : `Open ${bookLabel(target)}`}
          </button>
        )}
        <button type="button" onClick={onClose}>
          Stay here
        </button>
      </div>
    </ReaderDialog>
  );
}
