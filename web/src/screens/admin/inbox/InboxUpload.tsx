import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useState, type DragEvent } from 'react';
import { api, ok } from '../../../api/client';
import { inboxKeys } from './keys';
import { librariesQuery } from '../../../api/queries';
import { ErrorMessage } from '../../../components/ErrorView';
import { ProgressBar } from '../../../components/ProgressBar';
import { formatBytes } from '../../../lib/format';
import { cancelUpload, pauseUpload, resumeUpload, retryUpload, uploadFiles, useUploads } from './uploads';

const ACCEPT = '.cbz,.cbr,.cb7,.cbt,.zip,.rar,.7z,.epub,.kepub,.pdf';

/** Drag and drop (or choose) books to upload into an inbox folder, each with its own progress. */
export function InboxUpload({ onUploaded }: { onUploaded(): void }) {
  const { t } = useLingui();
  const folders = useQuery({ queryKey: inboxKeys.folders, queryFn: () => ok(api.GET('/api/v1/inbox/folders')), retry: false });
  const libraries = useQuery(librariesQuery);
  const [folderId, setFolderId] = useState('');
  const [over, setOver] = useState(false);
  const [problem, setProblem] = useState<unknown>(null);
  const jobs = useUploads();
  const list = folders.data?.data ?? [];
  const target = folderId || list[0]?.id || '';
  const libraryOf = (id: string) => libraries.data?.data.find((l) => l.id === id)?.name ?? id;

  const send = (files: readonly File[]) => {
    if (!target || files.length === 0) return;
    setProblem(null);
    uploadFiles(files, target, onUploaded).catch(setProblem);
  };
  const drop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setOver(false);
    send([...e.dataTransfer.files]);
  };

  if (folders.isPending) return null;
  if (list.length === 0 && !folders.error)
    return (
      <p className="hint">
        <Trans>To upload books, an administrator first adds an inbox folder (below, or under Administration → Inbox).</Trans>
      </p>
    );
  return (
    <div className="stack">
      <h3>
        <Trans>Upload</Trans>
      </h3>
      {list.length > 1 && (
        <label>
          <Trans>Into the inbox of</Trans>
          <select value={target} onChange={(e) => setFolderId(e.target.value)}>
            {list.map((f) => (
              <option key={f.id} value={f.id}>
                {f.path ? `${libraryOf(f.library_id)} — ${f.path}` : libraryOf(f.library_id)}
              </option>
            ))}
          </select>
        </label>
      )}
      <div
        className={over ? 'drop-zone over' : 'drop-zone'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>
          <Trans>Drop books here (CBZ, CBR, CB7, EPUB, PDF), or</Trans>
        </p>
        <label className="button">
          <Trans>Choose files…</Trans>
          <input
            type="file"
            multiple
            accept={ACCEPT}
            className="visually-hidden"
            onChange={(e) => {
              send([...(e.target.files ?? [])]);
              e.target.value = '';
            }}
          />
        </label>
      </div>
      <ErrorMessage error={folders.error ?? problem} />
      {jobs.length > 0 && (
        <ul className="upload-list" aria-label={t`Uploads`}>
          {jobs.map((job) => {
            const sent = formatBytes(job.sent);
            const size = formatBytes(job.size);
            const name = job.name;
            return (
              <li key={job.key} className="stack">
                <ProgressBar value={job.size > 0 ? job.sent / job.size : 1} label={t`${name}: ${sent} of ${size}`} small />
                <div className="inline">
                  <span className="mono">{job.name}</span>
                  <span className="hint" role="status">
                    {job.state === 'done' ? (
                      <Trans>Uploaded: it is in the review below.</Trans>
                    ) : job.state === 'paused' ? (
                      <Trans>
                        Paused at {sent} of {size}
                      </Trans>
                    ) : job.state === 'failed' ? (
                      <Trans>
                        Stopped at {sent} of {size}
                      </Trans>
                    ) : (
                      <Trans>
                        {sent} of {size}
                      </Trans>
                    )}
                  </span>
                  {job.state === 'uploading' && (
                    <button type="button" onClick={() => pauseUpload(job.key)}>
                      <Trans>Pause</Trans>
                    </button>
                  )}
                  {job.state === 'paused' && (
                    <button type="button" onClick={() => resumeUpload(job.key)}>
                      <Trans>Resume</Trans>
                    </button>
                  )}
                  {job.state === 'failed' && (
                    <button type="button" onClick={() => retryUpload(job.key)}>
                      <Trans>Try again</Trans>
                    </button>
                  )}
                  {job.state !== 'done' && (
                    <button type="button" onClick={() => cancelUpload(job.key)}>
                      <Trans>Cancel</Trans>
                    </button>
                  )}
                </div>
                {job.error && <p className="error-text">{job.error}</p>}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
