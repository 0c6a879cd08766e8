import { useSyncExternalStore } from 'react';
import { i18n } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { authHeaders } from '../../../api/client';

/** One file on its way to an inbox folder. */
export interface UploadJob {
  key: string;
  name: string;
  size: number;
  sent: number;
  state: 'uploading' | 'paused' | 'done' | 'failed';
  error: string | null;
  itemId: string | null;
}

type TusUpload = import('tus-js-client').Upload;

let jobs: UploadJob[] = [];
const running = new Map<string, TusUpload>();
const listeners = new Set<() => void>();

function update(key: string, change: Partial<UploadJob>): void {
  jobs = jobs.map((j) => (j.key === key ? { ...j, ...change } : j));
  for (const l of listeners) l();
}

/** The uploads of this page's lifetime, newest last (the hook re-renders on every change). */
export function useUploads(): UploadJob[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => jobs,
  );
}

/** What went wrong, in words: the server's message when it answered, else the network. */
function messageOf(err: unknown): string {
  const response = (err as { originalResponse?: { getBody(): string; getStatus(): number } | null }).originalResponse;
  if (response) {
    try {
      const body = JSON.parse(response.getBody()) as { message?: string };
      if (body.message) return body.message;
    } catch {
      // not JSON: tus's own answer
    }
    return i18n._(msg`The server refused the upload (HTTP ${response.getStatus()}).`);
  }
  return i18n._(msg`The connection was lost. Resume when you are back online.`);
}

/**
 * Sends files to an inbox folder with the tus resumable protocol (tus-js-client, loaded with the first upload):
 * in chunks, tried again after a dropped connection, and resumable after a reload (the browser keeps where each
 * file got to).
 */
export async function uploadFiles(files: readonly File[], folderId: string, onFinished: () => void): Promise<void> {
  const { Upload } = await import('tus-js-client');
  for (const file of files) {
    const key = `${file.name}:${file.size}:${file.lastModified}:${Date.now()}`;
    jobs = [...jobs, { key, name: file.name, size: file.size, sent: 0, state: 'uploading', error: null, itemId: null }];
    for (const l of listeners) l();
    const upload = new Upload(file, {
      endpoint: '/api/v1/inbox/uploads',
      // Each PATCH well within the server's request timeout (server.request_timeout_seconds, 60 s) on a slow uplink.
      chunkSize: 8 * 1024 * 1024,
      retryDelays: [0, 1000, 3000, 5000, 10000],
      metadata: { filename: file.name, folder_id: folderId },
      headers: { ...authHeaders(), 'Accept-Language': i18n.locale },
      removeFingerprintOnSuccess: true,
      onProgress: (sent) => update(key, { sent }),
      onAfterResponse: (_req, res) => {
        const itemId = res.getHeader('Inbox-Item-Id');
        if (itemId) update(key, { itemId });
      },
      onSuccess: () => {
        running.delete(key);
        update(key, { state: 'done', sent: file.size });
        onFinished();
      },
      // Kept in `running`: started again, it asks the server how far it got and goes on from there.
      onError: (err) => {
        update(key, { state: 'failed', error: messageOf(err) });
      },
    });
    running.set(key, upload);
    const previous = await upload.findPreviousUploads();
    if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
    upload.start();
  }
}

export function pauseUpload(key: string): void {
  const upload = running.get(key);
  if (!upload) return;
  void upload.abort(false).then(() => update(key, { state: 'paused' }));
}

export function resumeUpload(key: string): void {
  const upload = running.get(key);
  if (!upload) return;
  update(key, { state: 'uploading', error: null });
  upload.start();
}

/** Stops an upload and removes what the server received of it. */
export function cancelUpload(key: string): void {
  const upload = running.get(key);
  running.delete(key);
  jobs = jobs.filter((j) => j.key !== key);
  for (const l of listeners) l();
  void upload?.abort(true).catch(() => undefined);
}

/** A failed upload started again from where the server has it. */
export function retryUpload(key: string): void {
  resumeUpload(key);
}
