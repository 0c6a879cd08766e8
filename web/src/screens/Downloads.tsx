import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { bookLabel, formatBytes } from '../lib/format';
import { cancelDownload, listDownloads, startDownload, useDownloadsVersion, useJob } from '../offline/manager';
import { DownloadStatus } from '../offline/DownloadButton';
import { storageUse, type OfflineBook } from '../offline/downloads';

function useOnline(): boolean {
  const [online, setOnline] = useState(() => navigator.onLine);
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  return online;
}

function DownloadedBook({ book }: { book: OfflineBook }) {
  const { t } = useLingui();
  const job = useJob(book.bookId);
  const label = bookLabel(book);
  const size = formatBytes(book.bytes);
  return (
    <li className="card downloaded-book" data-testid="downloaded-book">
      <div>
        <h2>
          {book.complete ? (
            <Link to="/books/$bookId/read" params={{ bookId: book.bookId }}>
              {label}
            </Link>
          ) : (
            label
          )}
        </h2>
        {book.seriesTitle && <p className="muted">{book.seriesTitle}</p>}
        <p role="status">
          {job && job.status !== 'done' ? (
            <DownloadStatus state={job} />
          ) : book.complete ? (
            <Trans>{size} on this device</Trans>
          ) : (
            <Trans>
              Partly downloaded: {book.done} of {book.total} files ({size}).
            </Trans>
          )}
        </p>
      </div>
      <div className="actions">
        {!book.complete && !job && (
          <button type="button" onClick={() => startDownload(book.bookId)}>
            <Trans>Resume</Trans>
          </button>
        )}
        <button type="button" onClick={() => void cancelDownload(book.bookId)} aria-label={t`Remove ${label} from this device`}>
          <Trans>Remove</Trans>
        </button>
      </div>
    </li>
  );
}

/** The Downloaded shelf: what this browser keeps for reading offline, its size, and the room left. */
export function Downloads() {
  const { t } = useLingui();
  const version = useDownloadsVersion();
  const online = useOnline();
  const downloads = useQuery({ queryKey: ['offline', 'all', version], queryFn: listDownloads, networkMode: 'always' });
  const storage = useQuery({ queryKey: ['offline', 'storage', version], queryFn: storageUse, networkMode: 'always' });
  const list = downloads.data ?? [];
  const used = storage.data ? formatBytes(storage.data.used) : '';
  const left = storage.data ? formatBytes(Math.max(0, storage.data.quota - storage.data.used)) : '';
  return (
    <section aria-labelledby="downloads-heading" className="page downloads">
      <h1 id="downloads-heading">
        <Trans>Downloaded</Trans>
      </h1>
      <p className="hint">
        {online ? (
          <Trans>Books downloaded here can be read with no network; your place is sent home when the connection returns.</Trans>
        ) : (
          <Trans>You are offline. The books below can still be read; your place is sent home when the connection returns.</Trans>
        )}
      </p>
      {storage.data && (
        <p data-testid="storage-use">
          {storage.data.persisted ? (
            <Trans>
              Storage: {used} used, {left} left. This browser keeps the downloads until you remove them.
            </Trans>
          ) : (
            <Trans>
              Storage: {used} used, {left} left. The browser may clear downloads when the device runs short of space.
            </Trans>
          )}
        </p>
      )}
      {downloads.isPending ? (
        <p role="status">
          <Trans>Looking for downloaded books…</Trans>
        </p>
      ) : downloads.error ? (
        <p role="alert">
          <Trans>The downloads of this browser could not be read (its storage may be turned off for this site).</Trans>
        </p>
      ) : list.length === 0 ? (
        <p>
          <Trans>
            Nothing is downloaded yet. Open a book and choose Download for offline, or download the next unread books of a series.
          </Trans>
        </p>
      ) : (
        <ul className="downloaded-list" aria-label={t`Downloaded books`}>
          {list.map((book) => (
            <DownloadedBook key={book.bookId} book={book} />
          ))}
        </ul>
      )}
    </section>
  );
}
