import { useEffect, useState, useSyncExternalStore } from 'react';
import { progressTransport } from './data';
import { ProgressSaver, sendPending } from './progress';

/** One book's progress saver for as long as its reader is open; incognito keeps it from saving anything. */
export function useProgressSaver(bookId: string, incognito: boolean): ProgressSaver {
  const [saver] = useState(() => new ProgressSaver(bookId, progressTransport, localStorage));
  useEffect(() => saver.setIncognito(incognito), [saver, incognito]);
  return saver;
}

/**
 * Progress goes out at once when the page is hidden or left, and positions queued while offline when the network
 * returns. Its own hook, called after the reader's engine effect: on unmount the engine is destroyed first, then
 * the last position is flushed.
 */
export function useProgressFlushing(saver: ProgressSaver): void {
  useEffect(() => {
    const hide = () => void saver.flush(true);
    const visibility = () => document.visibilityState === 'hidden' && hide();
    const online = () => void sendPending(progressTransport, localStorage).then(() => saver.recheck());
    window.addEventListener('pagehide', hide);
    document.addEventListener('visibilitychange', visibility);
    window.addEventListener('online', online);
    online();
    return () => {
      window.removeEventListener('pagehide', hide);
      document.removeEventListener('visibilitychange', visibility);
      window.removeEventListener('online', online);
      void saver.flush(true);
      saver.stop();
    };
  }, [saver]);
}

/** Whether this book's position waits to be sent (the server could not be reached). */
export function useProgressQueued(saver: ProgressSaver): boolean {
  return useSyncExternalStore(saver.subscribe, () => saver.queued);
}
