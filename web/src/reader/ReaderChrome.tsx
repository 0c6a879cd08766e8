import { Link } from '@tanstack/react-router';
import { describeError } from '../api/client';
import type { ReactNode } from 'react';
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
        ← Back
      </Link>
      <div className="reader-title">
        <span className="eyebrow">{seriesTitle}</span>
        <strong>{bookLabel(book)}</strong>
      </div>
      <span className="reader-count">{position}</span>
      <label className="reader-toggle">
        <input type="checkbox" checked={incognito} onChange={(e) => onIncognito(e.target.checked)} /> Incognito
      </label>
      {children}
      <button type="button" className="small" onClick={() => fullscreen.toggle()} aria-pressed={fullscreen.on}>
        Full screen
      </button>
    </header>
  );
}

/** A small note while the reading position could not be saved: it is kept and sent when the server answers again. */
export function UnsavedProgressNote({ queued, settingsError }: { queued: boolean; settingsError?: unknown }) {
  return (
    <p className="reader-unsaved" role="status">
      {queued ? 'Progress not saved yet: it will be sent when the server can be reached.' : ''}
      {queued && settingsError ? <br /> : null}
      {settingsError ? `Reader settings not saved: ${describeError(settingsError)}` : ''}
    </p>
  );
}
