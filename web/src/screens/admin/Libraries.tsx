import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { librariesQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { FolderPicker } from '../../components/FolderPicker';
import { ProgressBar } from '../../components/ProgressBar';
import { checkCron } from '../../lib/cron';
import { formatDate, plural } from '../../lib/format';
import { isActive, useLiveScans, type LiveScan } from './scan-live';

type Library = components['schemas']['Library'];
type ScanningConfig = components['schemas']['ScanningConfig'];

/** Libraries: add and edit (folder, scan schedule), scan normal or deep with live progress, cancel, delete. */
export function LibrariesScreen() {
  const libraries = useQuery(librariesQuery);
  const { scans, started } = useLiveScans();
  const [editing, setEditing] = useState<Library | 'new' | null>(null);
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
      {editing !== null && <LibraryForm library={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
      <ErrorMessage error={libraries.error} />
      {libraries.isPending ? (
        <p>Loading…</p>
      ) : list.length === 0 ? (
        <p className="empty">No libraries yet — add one: pick the folder on the server that holds your comics or books.</p>
      ) : (
        <ul className="row-list" aria-label="Libraries">
          {list.map((library) => (
            <LibraryRow key={library.id} library={library} scan={scans.get(library.id)} onStarted={started} onEdit={() => setEditing(library)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function LibraryRow({ library, scan, onStarted, onEdit }: { library: Library; scan: LiveScan | undefined; onStarted(id: string, taskId: string): void; onEdit(): void }) {
  const queryClient = useQueryClient();
  const scanNow = useMutation({
    mutationFn: (mode: 'normal' | 'deep') => ok(api.POST('/api/v1/libraries/{id}/scan', { params: { path: { id: library.id }, query: { mode } } })),
    onSuccess: (task) => onStarted(library.id, task.id),
  });
  const cancel = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/libraries/{id}/scan/cancel', { params: { path: { id: library.id } } })),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/libraries/{id}', { params: { path: { id: library.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['libraries'] }),
  });
  const active = isActive(scan?.state);
  const cron = library.scanning_config.enabled && library.scanning_config.cron_schedule ? library.scanning_config.cron_schedule : null;

  return (
    <li className="row-item library-row" aria-label={library.name}>
      <div className="row-main">
        <strong>{library.name}</strong>
        <code className="hint path">{library.path}</code>
        <span className="hint">
          {plural(library.series_count, 'series', 'series')} · {plural(library.book_count, 'book')} · {library.last_scanned_at ? `last scanned ${formatDate(library.last_scanned_at)}` : 'never scanned'}
          {cron ? ` · scheduled: ${cron} (${library.scanning_config.default_mode})` : ''}
        </span>
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
            <button type="button" disabled={scanNow.isPending} onClick={() => scanNow.mutate('deep')} title="Re-read every file and refresh all metadata">
              Deep scan
            </button>
          </>
        )}
        <button type="button" onClick={onEdit}>
          Edit
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete the library "${library.name}"? Its series and books leave Bindery (the files stay on disk); reading statistics are kept.`)) remove.mutate();
          }}
        >
          Delete
        </button>
      </div>
      <ErrorMessage error={scanNow.error ?? cancel.error ?? remove.error} />
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
        {scan.discovered > 0 || active ? ` · ${scan.processed} of ${scan.discovered} files · ${plural(scan.seriesCreated, 'new series', 'new series')} · ${plural(scan.booksAdded, 'new book')}` : ''}
        {scan.errors > 0 ? ` · ${plural(scan.errors, 'error')}` : ''}
      </span>
      {scan.error && <span className="error-text">{scan.error}</span>}
    </div>
  );
}

const DEFAULT_CONFIG: ScanningConfig = { enabled: false, cron_schedule: null, default_mode: 'normal', scan_on_start: false };

function LibraryForm({ library, onDone }: { library: Library | null; onDone(): void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(library?.name ?? '');
  const [path, setPath] = useState(library?.path ?? '');
  const [picking, setPicking] = useState(false);
  const [config, setConfig] = useState<ScanningConfig>(library?.scanning_config ?? DEFAULT_CONFIG);
  const cronText = config.cron_schedule ?? '';
  const cron = checkCron(cronText);
  const cronMissing = config.enabled && cronText.trim() === '';
  const save = useMutation({
    mutationFn: async () => {
      const scanning_config = { ...config, cron_schedule: cronText.trim() === '' ? null : cronText.trim() };
      if (library) return ok(api.PUT('/api/v1/libraries/{id}', { params: { path: { id: library.id } }, body: { name, path, scanning_config } }));
      return ok(api.POST('/api/v1/libraries', { body: { name, path, scanning_config } }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['libraries'] });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (cron.ok && !cronMissing) save.mutate();
  };
  const title = library ? `Edit ${library.name}` : 'Add a library';

  return (
    <form className="card stack library-form" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      <label>
        Name
        <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="Comics" />
      </label>
      <div className="field">
        <label htmlFor="library-folder">Folder on the server</label>
        <div className="inline">
          <input id="library-folder" required value={path} onChange={(e) => setPath(e.target.value)} placeholder="/srv/comics" spellCheck={false} />
          <button type="button" onClick={() => setPicking((p) => !p)} aria-expanded={picking}>
            Browse…
          </button>
        </div>
      </div>
      {picking && (
        <FolderPicker
          initialPath={path || undefined}
          onChoose={(chosen) => {
            setPath(chosen);
            if (!name) setName(chosen.split(/[\\/]/).filter(Boolean).pop() ?? '');
            setPicking(false);
          }}
          onCancel={() => setPicking(false)}
        />
      )}
      <fieldset className="stack">
        <legend>Automatic scanning</legend>
        <label className="check">
          <input type="checkbox" checked={config.enabled} onChange={(e) => setConfig({ ...config, enabled: e.target.checked })} />
          Scan on a schedule
        </label>
        <div className="field">
          <label htmlFor="library-cron">Schedule (cron: minute hour day-of-month month day-of-week)</label>
          <input
            id="library-cron"
            className="mono"
            value={cronText}
            onChange={(e) => setConfig({ ...config, cron_schedule: e.target.value })}
            placeholder="0 3 * * *"
            spellCheck={false}
            aria-invalid={!cron.ok || cronMissing}
            aria-describedby="library-cron-check"
          />
          <span id="library-cron-check" className={cron.ok && !cronMissing ? 'hint' : 'error-text'} aria-live="polite">
            {!cron.ok
              ? cron.message
              : cronMissing
                ? 'A schedule is needed to scan automatically.'
                : cron.nextRuns.length > 0
                  ? `Next runs: ${cron.nextRuns.map((d) => d.toLocaleString(undefined, { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })).join(' · ')}`
                  : 'No schedule: scans run only when started here.'}
          </span>
        </div>
        <label>
          Scheduled scans are
          <select value={config.default_mode} onChange={(e) => setConfig({ ...config, default_mode: e.target.value as ScanningConfig['default_mode'] })}>
            <option value="normal">Normal: new and changed files only</option>
            <option value="deep">Deep: re-read every file</option>
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={config.scan_on_start} onChange={(e) => setConfig({ ...config, scan_on_start: e.target.checked })} />
          Scan when the server starts
        </label>
      </fieldset>
      <ErrorMessage error={save.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={save.isPending || !cron.ok || cronMissing}>
          {library ? 'Save library' : 'Create library'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
