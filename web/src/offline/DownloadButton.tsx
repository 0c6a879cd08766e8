import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { formatBytes } from '../lib/format';
import { cancelDownload, downloadOf, pauseDownload, startDownload, useDownloadsVersion, useJob, type JobState } from './manager';

/** What a download's state says, for a book's own page and for the Downloaded shelf. */
export function DownloadStatus({ state }: { state: JobState }) {
  const { t } = useLingui();
  if (state.status === 'queued') return <Trans>Waiting to download…</Trans>;
  if (state.status === 'downloading') {
    const { done, total } = state;
    return (
      <>
        <progress value={done} max={Math.max(total, 1)} aria-label={t`Download progress`} />{' '}
        <Trans>
          Downloading: {done} of {total} files
        </Trans>
      </>
    );
  }
  if (state.status === 'paused') {
    const { done, total } = state;
    return state.reason === 'offline' ? (
      <Trans>
        Waiting for the connection ({done} of {total} files kept); it goes on by itself.
      </Trans>
    ) : (
      <Trans>
        Paused at {done} of {total} files.
      </Trans>
    );
  }
  if (state.status === 'failed')
    return state.reason === 'quota' ? (
      <Trans>
        This device has no room left for downloads. Remove a book from <Link to="/downloads">Downloads</Link> to make room, then try again.
      </Trans>
    ) : (
      <Trans>The server did not let this book be downloaded (it may have been removed). Try again later.</Trans>
    );
  const size = formatBytes(state.book.bytes);
  return <Trans>On this device · {size}</Trans>;
}

/** Download for offline, with its progress, Pause, Resume, Cancel and Remove (a book's page). */
export function DownloadButton({ bookId }: { bookId: string }) {
  const { t } = useLingui();
  const version = useDownloadsVersion();
  const job = useJob(bookId);
  const kept = useQuery({ queryKey: ['offline', bookId, version], queryFn: () => downloadOf(bookId) });
  const state: JobState | undefined =
    job ??
    (kept.data
      ? kept.data.complete
        ? { status: 'done', book: kept.data }
        : { status: 'paused', done: kept.data.done, total: kept.data.total, reason: 'asked' }
      : undefined);
  if (typeof caches === 'undefined') return null;
  if (!state)
    return (
      <button type="button" onClick={() => startDownload(bookId)}>
        <Trans>Download for offline</Trans>
      </button>
    );
  return (
    <div className="offline-download" role="group" aria-label={t`Offline copy`}>
      <p className="offline-status" role="status">
        <DownloadStatus state={state} />
      </p>
      {state.status === 'downloading' && (
        <button type="button" onClick={() => pauseDownload(bookId)}>
          <Trans>Pause</Trans>
        </button>
      )}
      {(state.status === 'paused' || state.status === 'failed') && (
        <button type="button" onClick={() => startDownload(bookId)}>
          {state.status === 'paused' ? <Trans>Resume</Trans> : <Trans>Try again</Trans>}
        </button>
      )}
      {state.status === 'done' ? (
        <button type="button" onClick={() => void cancelDownload(bookId)}>
          <Trans>Remove from this device</Trans>
        </button>
      ) : (
        <button type="button" onClick={() => void cancelDownload(bookId)}>
          <Trans>Cancel</Trans>
        </button>
      )}
    </div>
  );
}

const CHOICES = [1, 3, 5, 10] as const;

/** Download the next N unread books of a series (or the books of a read list), N chosen. */
export function DownloadNextButton({ books, kind }: { books: readonly { id: string; unread: boolean }[]; kind: 'series' | 'list' }) {
  const [count, setCount] = useState<number>(3);
  const unread = books.filter((b) => b.unread);
  if (typeof caches === 'undefined' || unread.length === 0) return null;
  const chosen = unread.slice(0, count);
  const n = chosen.length;
  return (
    <div className="offline-next" role="group" aria-labelledby={`download-next-${kind}`}>
      <label id={`download-next-${kind}`}>
        <Trans>Unread books to download</Trans>
        <select value={count} onChange={(e) => setCount(Number(e.target.value))}>
          {CHOICES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={() => chosen.forEach((b) => startDownload(b.id))}>
        <Plural value={n} one="Download the next unread book" other="Download the next # unread books" />
      </button>
    </div>
  );
}
