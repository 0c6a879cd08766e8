import { Trans, useLingui } from '@lingui/react/macro';
import { useEffect, type ReactNode } from 'react';
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
  const { t } = useLingui();
  const target = at === 'end' ? next : previous;
  const title = bookLabel(book);
  const targetLabel = target ? bookLabel(target) : '';
  const listName = scope.kind === 'read-list' ? scope.name : '';
  const inList = scope.kind === 'read-list';
  // Whole sentences for each case (what follows: the series or the read list), so that translators see them whole.
  let where: ReactNode;
  if (target) {
    if (at === 'end')
      where = inList ? (
        <Trans>
          Next in the read list “{listName}”: <strong data-testid="neighbour-title">{targetLabel}</strong>
        </Trans>
      ) : (
        <Trans>
          Next in the series: <strong data-testid="neighbour-title">{targetLabel}</strong>
        </Trans>
      );
    else
      where = inList ? (
        <Trans>
          Previous in the read list “{listName}”: <strong data-testid="neighbour-title">{targetLabel}</strong>
        </Trans>
      ) : (
        <Trans>
          Previous in the series: <strong data-testid="neighbour-title">{targetLabel}</strong>
        </Trans>
      );
  } else if (at === 'end') {
    where = inList ? (
      <Trans>This is the last book of the read list “{listName}”.</Trans>
    ) : (
      <Trans>This is the last book of the series.</Trans>
    );
  } else {
    where = inList ? (
      <Trans>This is the first book of the read list “{listName}”.</Trans>
    ) : (
      <Trans>This is the first book of the series.</Trans>
    );
  }
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
    <ReaderDialog title={at === 'end' ? t`End of ${title}` : t`Start of ${title}`} onClose={onClose} className="end-panel">
      <p>{where}</p>
      <div className="actions">
        {target && (
          <button type="button" className="primary" data-autofocus onClick={() => onOpen(target.id)}>
            {at === 'end' ? <Trans>Continue: {targetLabel}</Trans> : <Trans>Open {targetLabel}</Trans>}
          </button>
        )}
        <button type="button" onClick={onClose}>
          <Trans>Stay here</Trans>
        </button>
      </div>
    </ReaderDialog>
  );
}
