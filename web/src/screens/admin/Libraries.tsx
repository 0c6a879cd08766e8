import type { MessageDescriptor } from '@lingui/core';
import { msg, plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, describeError, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { librariesQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { LibraryForm } from '../../components/LibraryForm';
import { ProgressBar } from '../../components/ProgressBar';
import { formatDate } from '../../lib/format';
import { isActive, useLiveScans, type LiveScan } from './scan-live';
import { FindFile } from './FindFile';

type Library = components['schemas']['Library'];
type WatchStatus = components['schemas']['LibraryWatchStatus'];

/** Libraries: add and edit (folder, scan schedule), scan normal or deep with live progress, cancel, delete. */
export function LibrariesScreen() {
  const { t } = useLingui();
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
  const editingName = editing !== null && editing !== 'new' ? editing.name : '';
  const formTitle = editing === 'new' ? t`Add a library` : t`Edit ${editingName}`;
  const noticeName = scanNotice?.name;
  const noticeReason = scanNotice ? describeError(scanNotice.error) : '';

  return (
    <section aria-labelledby="libraries-heading">
      <div className="section-head">
        <h2 id="libraries-heading">
          <Trans>Libraries</Trans>
        </h2>
        {editing === null && (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            <Trans>Add library</Trans>
          </button>
        )}
      </div>
      {editing !== null && (
        <LibraryForm
          library={editing === 'new' ? null : editing}
          title={formTitle}
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
          <Trans>
            {noticeName} was added, but its first scan could not be started ({noticeReason}): start it with its Scan button.
          </Trans>
        </p>
      )}
      <ErrorMessage error={libraries.error} />
      {libraries.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !libraries.data ? null : list.length === 0 ? (
        <p className="empty">
          <Trans>No libraries yet — add one: pick the folder on the server that holds your comics or books.</Trans>
        </p>
      ) : (
        <ul className="row-list" aria-label={t`Libraries`}>
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

const WATCH_WORDS: Record<WatchStatus['state'], MessageDescriptor> = {
  watching: msg`watching for changes`,
  polling: msg`polling for changes`,
  paused: msg`watching paused: folder missing`,
  off: msg`not watched`,
  elsewhere: msg`watched by another instance`,
  failed: msg`watching failed`,
  stopped: msg`not watched`,
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
  const { t, i18n } = useLingui();
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
  const { name, series_count: seriesCount, book_count: bookCount, last_scanned_at: lastScannedAt } = library;
  const mode = library.scanning_config.default_mode;
  const seriesText = plural(seriesCount, { one: `${seriesCount} series`, other: `${seriesCount} series` });
  const booksText = plural(bookCount, { one: `${bookCount} book`, other: `${bookCount} books` });
  const lastScanned = lastScannedAt ? formatDate(lastScannedAt) : '';
  const scannedText = lastScannedAt ? t`last scanned ${lastScanned}` : t`never scanned`;

  return (
    <li className="row-item library-row" aria-label={library.name}>
      <div className="row-main">
        <strong>{library.name}</strong>
        <code className="hint path">{library.path}</code>
        <span className="hint">
          {seriesText} · {booksText} · {scannedText}
          {cron ? ` · ${t`scheduled: ${cron} (${mode})`}` : ''}
          {watch ? ` · ${i18n._(WATCH_WORDS[watch.state])}` : ''}
          {library.scanning_config.write_comicinfo ? ` · ${t`edits written into CBZ files`}` : ''}
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
            <Trans>Cancel scan</Trans>
          </button>
        ) : (
          <>
            <button type="button" disabled={scanNow.isPending} onClick={() => scanNow.mutate('normal')}>
              <Trans>Scan</Trans>
            </button>
            <button
              type="button"
              disabled={scanNow.isPending}
              onClick={() => scanNow.mutate('deep')}
              title={t`Re-read every file and refresh all metadata`}
            >
              <Trans>Deep scan</Trans>
            </button>
          </>
        )}
        <button
          type="button"
          disabled={identify.isPending}
          onClick={() => identify.mutate()}
          title={t`Look up the series not matched yet in the metadata sources that are turned on`}
        >
          <Trans>Identify series</Trans>
        </button>
        <button type="button" onClick={onEdit}>
          <Trans>Edit</Trans>
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (
              window.confirm(
                t`Delete the library "${name}"? Its series and books leave Colophon (the files stay on disk); reading statistics are kept.`,
              )
            )
              remove.mutate();
          }}
        >
          <Trans>Delete</Trans>
        </button>
      </div>
      {identify.isSuccess && (
        <p className="hint" role="status">
          <Trans>Identification started: follow it under Tasks; sure matches are applied, the others wait under Metadata review.</Trans>
        </p>
      )}
      <ErrorMessage error={scanNow.error ?? cancel.error ?? remove.error ?? identify.error} />
    </li>
  );
}

const STATE_WORDS: Record<LiveScan['state'], MessageDescriptor> = {
  idle: msg`Not scanned yet`,
  pending: msg`Scan waiting to start`,
  running: msg`Scanning`,
  completed: msg`Scan completed`,
  failed: msg`Scan failed`,
  cancelled: msg`Scan cancelled`,
};

function ScanProgress({ name, scan }: { name: string; scan: LiveScan }) {
  const { t, i18n } = useLingui();
  const active = isActive(scan.state);
  const { processed, discovered, seriesCreated, booksAdded, errors } = scan;
  // The English has always said "files" after "of" (a scan counts many); the plural lets other languages be right.
  const filesText = plural(discovered, {
    one: `${processed} of ${discovered} files`,
    other: `${processed} of ${discovered} files`,
  });
  const newSeriesText = plural(seriesCreated, { one: `${seriesCreated} new series`, other: `${seriesCreated} new series` });
  const newBooksText = plural(booksAdded, { one: `${booksAdded} new book`, other: `${booksAdded} new books` });
  const errorsText = plural(errors, { one: `${errors} error`, other: `${errors} errors` });
  const fraction = scan.state === 'completed' ? 1 : scan.discovered > 0 ? scan.processed / scan.discovered : 0;
  return (
    <div className="scan-progress" aria-live="polite">
      {active && <ProgressBar value={fraction} label={t`Scan progress of ${name}`} indeterminate={scan.discovered === 0} />}
      <span className={`scan-state ${scan.state}`}>
        {i18n._(STATE_WORDS[scan.state])}
        {scan.discovered > 0 || active ? ` · ${filesText} · ${newSeriesText} · ${newBooksText}` : ''}
        {scan.errors > 0 ? ` · ${errorsText}` : ''}
      </span>
      {scan.error && <span className="error-text">{scan.error}</span>}
    </div>
  );
}
