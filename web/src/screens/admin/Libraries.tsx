import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, describeError, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { librariesQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { LibraryForm } from '../../components/LibraryForm';
import { ProgressBar } from '../../components/ProgressBar';
import { formatDate, plural } from '../../lib/format';
import { isActive, useLiveScans, type LiveScan } from './scan-live';
import { FindFile } from './FindFile';

type Library = components['schemas']['Library'];
type WatchStatus = components['schemas']['LibraryWatchStatus'];

/** Libraries: add and edit (folder, scan schedule), scan normal or deep with live progress, cancel, delete. */
export function LibrariesScreen() {
  const libraries = useQuery(librariesQuery);
  const watching = useQuery({
    queryKey: ['libraries', 'watching'],
    queryFn: () => ok(api.GET('/api/v1/libraries/watching')),
    refetchInterval: 10_000,
  });
  const watchStates = new Map((watching.data?.data ?? []).map((w) => [w.library_id, w]));
  const { scans, started } = useLiveScans();
  const [editing, setEditing] = useState<Library | 'new' | null>(null);
  const [scanNotice, setScanNotice] = useState<{ name: string; error: unknown } | null>(null);
  const list = libraries.data?.data ?? [];

  return (
    <section aria-labelledby="libraries-heading">
      <div className="section-head">
        <h2 id="libraries-heading">Libraries</h2>
        {editing === null && (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Add library
          </button>
        )}
      </div>
      {editing !== null && (
        <LibraryForm
          library={editing === 'new' ? null : editing}
          title={editing === 'new' ? 'Add a library' : `Edit ${editing.name}`}
          // A new library is scanned at once (as in the setup wizard); its row shows the scan's live progress.
          scanAfterCreate
          onSaved={(saved, scanTaskId, scanError) => {
            if (scanTaskId) started(saved.id, scanTaskId);
            setScanNotice(scanError ? { name: saved.name, error: scanError } : null);
            setEditing(null);
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {scanNotice && (
        <p className="error-text" role="alert">
          {scanNotice.name} was added, but its first scan could not be started ({describeError(scanNotice.error)}): start it with its Scan
          button.
        </p>
      )}
      <ErrorMessage error={libraries.error} />
      {libraries.isPending ? (
        <p>Loading…</p>
      ) : !libraries.data ? null : list.length === 0 ? (
        <p className="empty">No libraries yet — add one: pick the folder on the server that holds your comics or books.</p>
      ) : (
        <ul className="row-list" aria-label="Libraries">
          {list.map((library) => (
            <LibraryRow
              key={library.id}
              library={library}
              scan={scans.get(library.id)}
              watch={watchStates.get(library.id)}
              onStarted={started}
              onEdit={() => setEditing(library)}
            />
          ))}
        </ul>
      )}
      <FindFile libraries={list} />
    </section>
  );
}

const WATCH_WORDS: Record<WatchStatus['state'], string> = {
  watching: 'watching for changes',
  polling: 'polling for changes',
  paused: 'watching paused: folder missing',
  off: 'not watched',
  elsewhere: 'watched by another instance',
  failed: 'watching failed',
  stopped: 'not watched',
};

function LibraryRow({
  library,
  scan,
  watch,
  onStarted,
  onEdit,
}: {
  library: Library;
  scan: LiveScan | undefined;
  watch: WatchStatus | undefined;
  onStarted(id: string, taskId: string): void;
  onEdit(): void;
}) {
  const queryClient = useQueryClient();
  const scanNow = useMutation({
    mutationFn: (mode: 'normal' | 'deep') =>
      ok(api.POST('/api/v1/libraries/{id}/scan', { params: { path: { id: library.id }, query: { mode } } })),
    onSuccess: (task) => onStarted(library.id, task.id),
  });
  const cancel = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/libraries/{id}/scan/cancel', { params: { path: { id: library.id } } })),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/libraries/{id}', { params: { path: { id: library.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.libraries.all }),
  });
  const identify = useMutation({
    mutationFn: () =>
      ok(api.POST('/api/v1/libraries/{id}/identify', { params: { path: { id: library.id } }, body: { which: 'unmatched' } })),
  });
  const active = isActive(scan?.state);
  const cron = library.scanning_config.enabled && library.scanning_config.cron_schedule ? library.scanning_config.cron_schedule : null;

  return (
    <li className="row-item library-row" aria-label={library.name}>
      <div className="row-main">
        <strong>{library.name}</strong>
        <code className="hint path">{library.path}</code>
        <span className="hint">
          {plural(library.series_count, 'series', 'series')} · {plural(library.book_count, 'book')} ·{' '}
          {library.last_scanned_at ? `last scanned ${formatDate(library.last_scanned_at)}` : 'never scanned'}
          {cron ? ` · scheduled: ${cron} (${library.scanning_config.default_mode})` : ''}
          {watch ? ` · ${WATCH_WORDS[watch.state]}` : ''}
          {library.scanning_config.write_comicinfo ? ' · edits written into CBZ files' : ''}
        </span>
        {watch?.reason && (watch.state === 'paused' || watch.state === 'failed') && (
          <span className="error-text" role="status">
            {watch.reason}
          </span>
        )}
        {scan && <ScanProgress name={library.name} scan={scan} />}
      </div>
      <div className="row-actions">
        {active ? (
          <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
            Cancel scan
          </button>
        ) : (
          <>
            <button type="button" disabled={scanNow.isPending} onClick={() => scanNow.mutate('normal')}>
              Scan
            </button>
            <button
              type="button"
              disabled={scanNow.isPending}
              onClick={() => scanNow.mutate('deep')}
              title="Re-read every file and refresh all metadata"
            >
              Deep scan
            </button>
          </>
        )}
        <button
          type="button"
          disabled={identify.isPending}
          onClick={() => identify.mutate()}
          title="Look up the series not matched yet in the metadata sources that are turned on"
        >
          Identify series
        </button>
        <button type="button" onClick={onEdit}>
          Edit
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (
              window.confirm(
                `Delete the library "${library.name}"? Its series and books leave Colophon (the files stay on disk); reading statistics are kept.`,
              )
            )
              remove.mutate();
          }}
        >
          Delete
        </button>
      </div>
      {identify.isSuccess && (
        <p className="hint" role="status">
          Identification started: follow it under Tasks; sure matches are applied, the others wait under Metadata review.
        </p>
      )}
      <ErrorMessage error={scanNow.error ?? cancel.error ?? remove.error ?? identify.error} />
    </li>
  );
}

const STATE_WORDS: Record<LiveScan['state'], string> = {
  idle: 'Not scanned yet',
  pending: 'Scan waiting to start',
  running: 'Scanning',
  completed: 'Scan completed',
  failed: 'Scan failed',
  cancelled: 'Scan cancelled',
};

function ScanProgress({ name, scan }: { name: string; scan: LiveScan }) {
  const active = isActive(scan.state);
  const fraction = scan.state === 'completed' ? 1 : scan.discovered > 0 ? scan.processed / scan.discovered : 0;
  return (
    <div className="scan-progress" aria-live="polite">
      {active && <ProgressBar value={fraction} label={`Scan progress of ${name}`} indeterminate={scan.discovered === 0} />}
      <span className={`scan-state ${scan.state}`}>
        {STATE_WORDS[scan.state]}
        {scan.discovered > 0 || active
          ? ` · ${scan.processed} of ${scan.discovered} files · ${plural(scan.seriesCreated, 'new series', 'new series')} · ${plural(scan.booksAdded, 'new book')}`
          : ''}
        {scan.errors > 0 ? ` · ${plural(scan.errors, 'error')}` : ''}
      </span>
      {scan.error && <span className="error-text">{scan.error}</span>}
    </div>
  );
}
