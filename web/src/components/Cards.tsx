import { plural } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { components } from '../api/client';
import { bookLabel } from '../lib/format';
import { Cover } from './Cover';
import { ProgressBar } from './ProgressBar';

export type Series = components['schemas']['Series'];
export type Book = components['schemas']['Book'];

/** A card in a selection (the library grid's selection mode): a toggle button instead of a link. */
export interface CardSelect {
  selected: boolean;
  onSelect(shift: boolean): void;
}

function SelectableCard({ select, testId, children }: { select: CardSelect; testId: string; children: ReactNode }) {
  return (
    <button
      type="button"
      className={`card-link selectable${select.selected ? ' selected' : ''}`}
      aria-pressed={select.selected}
      data-testid={testId}
      onClick={(e) => select.onSelect(e.shiftKey)}
    >
      <span className="select-mark" aria-hidden="true">
        {select.selected ? '✓' : ''}
      </span>
      {children}
    </button>
  );
}

export function SeriesCard({ series, select }: { series: Series; select?: CardSelect }) {
  const unread = series.books_unread_count;
  const bookCount = series.book_count;
  const body = (
    <>
      <Cover src={`/api/v1/series/${series.id}/thumbnail`} alt="" />
      {/* Read out as "5 unread, Akira, 6 books": the bare badge number once ran into the title ("5Akira6 books"). */}
      {unread > 0 && (
        <span className="badge" title={plural(unread, { one: '# unread', other: '# unread' })}>
          <span aria-hidden="true">{unread}</span>
          <span className="visually-hidden">
            <Plural value={unread} one="# unread, " other="# unread, " />
          </span>
        </span>
      )}
      <span className="card-title">
        {series.metadata.title}
        <span className="visually-hidden">, </span>
      </span>
      <span className="card-sub">
        <Plural value={bookCount} one="# book" other="# books" />
      </span>
    </>
  );
  if (select)
    return (
      <SelectableCard select={select} testId="series-card">
        {body}
      </SelectableCard>
    );
  return (
    <Link to="/series/$seriesId" params={{ seriesId: series.id }} className="card-link" data-testid="series-card">
      {body}
    </Link>
  );
}

export function readState(book: Book): 'read' | 'in-progress' | 'unread' {
  if (!book.progress) return 'unread';
  return book.progress.is_completed ? 'read' : 'in-progress';
}

export function BookCard({ book, showProgress = true, select }: { book: Book; showProgress?: boolean; select?: CardSelect }) {
  const { t } = useLingui();
  const state = readState(book);
  const pageCount = book.page_count;
  const percent = book.progress ? Math.round(book.progress.progress * 100) : 0;
  const body = (
    <>
      <Cover src={`/api/v1/books/${book.id}/thumbnail`} alt="" />
      {state === 'read' && (
        <span className="badge read">
          <Trans context="book status">Read</Trans>
        </span>
      )}
      <span className="card-title">{bookLabel(book)}</span>
      {showProgress && state === 'in-progress' && book.progress && (
        <ProgressBar small value={book.progress.progress} label={t`${percent}% read`} />
      )}
      <span className="card-sub">
        <Plural value={pageCount} one="# page" other="# pages" />
      </span>
    </>
  );
  if (select)
    return (
      <SelectableCard select={select} testId="book-card">
        {body}
      </SelectableCard>
    );
  return (
    <Link to="/books/$bookId" params={{ bookId: book.id }} className="card-link" data-testid="book-card">
      {body}
    </Link>
  );
}

/** Cards waiting for their data: the same size, so nothing jumps when they arrive. */
export function CardSkeleton() {
  return (
    <div className="card-link skeleton" aria-hidden="true">
      <div className="cover">
        <div className="cover-placeholder" />
      </div>
      <span className="card-title">&nbsp;</span>
    </div>
  );
}
