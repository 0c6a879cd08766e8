import { Trans } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import { describeError } from '../api/client';
import { useEffect, useState, type ReactNode } from 'react';
import { bookLabel } from '../lib/format';
import type { Book } from './data';

/**
 * The chrome shared by the comic and EPUB readers: the top bar and the unsaved-progress note. Their panels are in
 * files of their own (KeyMap, EndPanel, ReaderSettingsPanel, on ReaderDialog), and so are the small hooks
 * (use-viewport, use-device-class, use-incognito, use-fullscreen) and the keyboard rule (keyboard.ts).
 */

/**
 * The reader's top bar while the menu is open: back to the book, the series and book title, where the reader
 * is, the incognito switch, then the reader's own buttons (`children`: Contents, Settings…) and full screen.
 */
export function ReaderBar({
  book,
  seriesTitle,
  position,
  incognito,
  onIncognito,
  fullscreen,
  children,
}: {
  book: Book;
  seriesTitle: string;
  position: string;
  incognito: boolean;
  onIncognito(on: boolean): void;
  fullscreen: { on: boolean; toggle(): void };
  children?: ReactNode;
}) {
  return (
    <header className="reader-bar top">
      <Link to="/books/$bookId" params={{ bookId: book.id }} className="button small">
        <Trans>← Back</Trans>
      </Link>
      <div className="reader-title">
        <span className="eyebrow">{seriesTitle}</span>
        <strong>{bookLabel(book)}</strong>
      </div>
      <span className="reader-count">{position}</span>
      <label className="reader-toggle">
        <input type="checkbox" checked={incognito} onChange={(e) => onIncognito(e.target.checked)} /> <Trans>Incognito</Trans>
      </label>
      {children}
      <button type="button" className="small" onClick={() => fullscreen.toggle()} aria-pressed={fullscreen.on}>
        <Trans>Full screen</Trans>
      </button>
    </header>
  );
}

/** A small note while the reading position could not be saved: it is kept and sent when the server answers again. */
export function UnsavedProgressNote({ queued, settingsError }: { queued: boolean; settingsError?: unknown }) {
  const detail = settingsError ? describeError(settingsError) : '';
  return (
    <p className="reader-unsaved" role="status">
      {queued ? <Trans>Progress not saved yet: it will be sent when the server can be reached.</Trans> : ''}
      {queued && settingsError ? <br /> : null}
      {settingsError ? <Trans>Reader settings not saved: {detail}</Trans> : ''}
    </p>
  );
}

/** How long the position stays after a turn before it fades (or, with reduced motion, goes). */
export const PAGE_FLASH_MS = 1500;

/**
 * Where the reader is, for a moment after each turn (`turn` counts the turns; 0: none yet), then gone: the reader
 * shows no position otherwise unless its menu is open. Only drawn: hidden from screen readers (the status line
 * says the same), never focused, and clicks and taps go through it to the page. `hidden`: not now (the menu is
 * open and shows the position, or the reader turned it off).
 */
export function PageFlash({ text, turn, hidden }: { text: string; turn: number; hidden: boolean }) {
  const [over, setOver] = useState(0);
  useEffect(() => {
    if (turn === 0) return;
    const timer = window.setTimeout(() => setOver(turn), PAGE_FLASH_MS);
    return () => window.clearTimeout(timer);
  }, [turn]);
  const shown = !hidden && turn > 0 && over !== turn;
  return (
    <div className={`page-flash${shown ? ' shown' : ''}`} aria-hidden="true" data-testid="page-flash">
      {text}
    </div>
  );
}
