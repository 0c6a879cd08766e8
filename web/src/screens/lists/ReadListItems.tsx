import type { I18n } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import type { components } from '../../api/client';
import { readState } from '../../components/Cards';
import { Cover } from '../../components/Cover';
import { bookLabel } from '../../lib/format';

type Item = components['schemas']['ReadListItem'];

const STATE_LABEL = {
  read: msg({ message: 'Read', context: 'book state' }),
  'in-progress': msg`In progress`,
  unread: msg`Unread`,
} as const;

/** The items in the order of `bookIds` (a reorder on its way): entries waiting for a book keep their places. */
export function inBookOrder(items: Item[], bookIds: string[] | undefined): Item[] {
  if (!bookIds) return items;
  const byBook = new Map(items.filter((i) => i.book_id).map((i) => [i.book_id as string, i]));
  const queue = bookIds.map((id) => byBook.get(id)).filter((i): i is Item => !!i);
  return items.map((i) => (i.book_id ? (queue.shift() ?? i) : i));
}

/** What a CBL entry with no book asked for: "Klaus (2015) #3, 2016". */
function wantedLabel(item: Item, i18n: I18n): string {
  const w = item.wanted;
  if (!w) return i18n._(msg`A book no longer in the library`);
  const volume = w.volume ? ` (${w.volume})` : '';
  const number = w.number ? ` #${w.number}` : '';
  return `${w.series ?? i18n._(msg`Unknown series`)}${volume}${number}${w.year ? `, ${w.year}` : ''}`;
}

/**
 * A read list's entries in order, each book with the caller's reading state. Who may edit the list reorders its books
 * by dragging a row or with the Move up / Move down buttons (the keyboard's way), and removes them.
 */
export function ReadListItems({
  listName,
  items,
  canEdit,
  busy,
  onReorder,
  onRemove,
}: {
  listName: string;
  items: Item[];
  canEdit: boolean;
  busy: boolean;
  onReorder(bookIds: string[]): void;
  onRemove(bookId: string): void;
}) {
  const { t, i18n } = useLingui();
  const [dragged, setDragged] = useState<string | null>(null);
  const bookIds = items.flatMap((i) => (i.book_id ? [i.book_id] : []));
  const move = (bookId: string, to: number) => {
    const from = bookIds.indexOf(bookId);
    if (from < 0 || to < 0 || to >= bookIds.length || from === to) return;
    const next = [...bookIds];
    next.splice(from, 1);
    next.splice(to, 0, bookId);
    onReorder(next);
  };
  return (
    <ol className="book-list read-list-items" aria-label={t`Books of ${listName}`}>
      {items.map((item) => {
        const b = item.book;
        if (!b) {
          return (
            <li key={item.id} className="book-row missing" data-testid="read-list-item">
              <div className="cover row-cover">
                <div className="cover-placeholder" aria-hidden="true" />
              </div>
              <div className="book-row-body">
                <span>{wantedLabel(item, i18n)}</span>
                <span className="state-mark">
                  <Trans>Missing: it joins the list when a scan adds it</Trans>
                </span>
              </div>
            </li>
          );
        }
        const state = readState(b);
        const index = bookIds.indexOf(b.id);
        const label = bookLabel(b);
        return (
          <li
            key={item.id}
            className={`book-row ${state}${dragged === b.id ? ' dragging' : ''}`}
            data-testid="read-list-item"
            draggable={canEdit && !busy}
            onDragStart={(e) => {
              e.dataTransfer.effectAllowed = 'move';
              e.dataTransfer.setData('text/plain', b.id);
              setDragged(b.id);
            }}
            onDragEnd={() => setDragged(null)}
            onDragOver={(e) => {
              if (dragged) e.preventDefault();
            }}
            onDrop={(e) => {
              e.preventDefault();
              if (dragged) move(dragged, index);
              setDragged(null);
            }}
          >
            <Cover src={`/api/v1/books/${b.id}/thumbnail`} alt="" className="row-cover" />
            <div className="book-row-body">
              <Link to="/books/$bookId" params={{ bookId: b.id }}>
                {label}
              </Link>
              <span className="card-sub">{b.metadata.series ?? ''}</span>
              <span className={`state-mark ${state}`}>{i18n._(STATE_LABEL[state])}</span>
            </div>
            {canEdit && (
              <div className="row-actions">
                <button type="button" className="small" disabled={busy || index === 0} onClick={() => move(b.id, index - 1)}>
                  <Trans>
                    Move up<span className="visually-hidden">: {label}</span>
                  </Trans>
                </button>
                <button
                  type="button"
                  className="small"
                  disabled={busy || index === bookIds.length - 1}
                  onClick={() => move(b.id, index + 1)}
                >
                  <Trans>
                    Move down<span className="visually-hidden">: {label}</span>
                  </Trans>
                </button>
                <button type="button" className="small" disabled={busy} onClick={() => onRemove(b.id)}>
                  <Trans>
                    Remove<span className="visually-hidden">: {label}</span>
                  </Trans>
                </button>
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
