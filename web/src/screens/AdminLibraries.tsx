import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useState, type FormEvent } from 'react';
import { api, ok, type components } from '../api/client';
import { librariesQuery } from '../api/queries';
import { followEventStream } from '../api/sse';
import { ErrorMessage } from '../components/ErrorView';
import { FolderPicker } from '../components/FolderPicker';
import { ProgressBar } from '../components/ProgressBar';
import { cronProblem } from '../lib/cron';
import { formatDate, plural } from '../lib/format';

type Library = components['schemas']['Library'];
type ScanStatus = components['schemas']['ScanStatus'];

interface ScanEvent {
  type: string;
  library_id: string;
  files_discovered: number;
  files_processed: number;
  series_created: number;
  books_added: number;
  errors: number;
}

const LIVE_STATE: Record<string, ScanStatus['state']> = {
  scan_started: 'running',
  scan_progress: 'running',
  scan_completed: 'completed',
  scan_failed: 'failed',
  scan_cancelled: 'cancelled',
};

/** Scan events of every library, as they arrive (the scan stream), keyed by library. */
function useLiveScans(): Record<string, ScanEvent> {
  const queryClient = useQueryClient();
  const [scans, setScans] = useState<Record<string, ScanEvent>>({});
  useEffect(() => {
    const stream = followEventStream('/api/v1/scans/stream', (event) => {
      const data = event.data as ScanEvent;
      setScans((s) => ({ ...s, [data.library_id]: data }));
      if (event.name !== 'scan_progress') {
        void queryClient.invalidateQueries({ queryKey: ['libraries'] });
      }
    });
    return () => stream.close();
  }, [queryClient]);
  return scans;
}

export function AdminLibraries() {
  const libraries = useQuery(librariesQuery);
  const live = useLiveScans();
  const [adding, setAdding] = useState(false);
  return (
    <div className="page narrow-wide">
      <h1>Libraries</h1>
      <p className="hint">Each library is a folder on the server. Scans find new, changed and removed files; a deep scan reads every file again.</p>
      <ErrorMessage error={libraries.error} />
      {libraries.data?.total === 0 && !adding && <p className="empty">No libraries yet — add one.</p>}
      <ul className="key-list">
        {libraries.data?.data.map((l) => (
          <LibraryRow key={l.id} library={l} live={live[l.id]} />
        ))}
      </ul>
      {adding ? <LibraryForm onDone={() => setAdding(false)} /> : <button type="button" className="primary" onClick={() => setAdding(true)}>Add a library</button>}
    </div>
  );
}

function LibraryRow({ library, live }: { library: Library; live?: ScanEvent }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const status = useQuery({
    queryKey: ['libraries', library.id, 'scan-status'],
    queryFn: () => ok(api.GET('/api/v1/libraries/{id}/scan-status', { params: { path: { id: library.id } } })),
  });
  useEffect(() => {
    if (live && live.type !== 'scan_progress') void queryClient.invalidateQueries({ queryKey: ['libraries', library.id, 'scan-status'] });
  }, [live, library.id, queryClient]);
  const scan = useMutation({
    mutationFn: (mode: 'normal' | 'deep') => ok(api.POST('/api/v1/libraries/{id}/scan', { params: { path: { id: library.id }, query: { mode } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['libraries', library.id, 'scan-status'] }),
  });
  const cancel = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/libraries/{id}/scan/cancel', { params: { path: { id: library.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['libraries', library.id, 'scan-status'] }),
  });

  const state: ScanStatus['state'] | undefined = (live && LIVE_STATE[live.type]) ?? status.data?.state;
  const running = state === 'running' || state === 'pending';
  const processed = live?.files_processed ?? status.data?.progress.current ?? 0;
  const total = live?.files_discovered ?? status.data?.progress.total ?? 0;

  return (
    <li className="card library-row" data-testid="library-row">
      <div className="library-row-head">
        <div>
          <h2 className="small-heading">
            <Link to="/libraries/$libraryId" params={{ libraryId: library.id }}>
              {library.name}
            </Link>
          </h2>
          <p className="hint">
            <code>{library.path}</code> · {plural(library.series_count, 'series', 'series')} · {plural(library.book_count, 'book')} · last scanned {formatDate(library.last_scanned_at)}
            {library.scanning_config.enabled && library.scanning_config.cron_schedule ? ` · scheduled ${library.scanning_config.cron_schedule}` : ''}
          </p>
        </div>
        <div className="actions">
          {running ? (
            <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              Cancel scan<span className="visually-hidden"> of {library.name}</span>
            </button>
          ) : (
            <>
              <button type="button" onClick={() => scan.mutate('normal')} disabled={scan.isPending}>
                Scan<span className="visually-hidden"> {library.name}</span>
              </button>
              <button type="button" onClick={() => scan.mutate('deep')} disabled={scan.isPending}>
                Deep scan<span className="visually-hidden"> {library.name}</span>
              </button>
            </>
          )}
          <button type="button" onClick={() => setEditing((e) => !e)} aria-expanded={editing}>
            Edit<span className="visually-hidden"> {library.name}</span>
          </button>
        </div>
      </div>
      <div aria-live="polite" className="scan-state">
        {running && (
          <>
            <ProgressBar value={total > 0 ? processed / total : 0} indeterminate={total === 0} label={`Scan of ${library.name}`} />
            <p className="hint">
              Scanning: {processed} of {total} files · {live?.series_created ?? 0} new series · {live?.books_added ?? 0} new books
            </p>
          </>
        )}
        {!running && state && state !== 'idle' && (
          <p className="hint" data-testid="scan-state">
            Last scan {state}
            {status.data?.error ? `: ${status.data.error}` : ''}
          </p>
        )}
      </div>
      <ErrorMessage error={scan.error ?? cancel.error} />
      {editing && <LibraryForm library={library} onDone={() => setEditing(false)} />}
    </li>
  );
}

function LibraryForm({ library, onDone }: { library?: Library; onDone(): void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(library?.name ?? '');
  const [path, setPath] = useState(library?.path ?? '');
  const [picking, setPicking] = useState(false);
  const [scheduled, setScheduled] = useState(library?.scanning_config.enabled ?? false);
  const [cron, setCron] = useState(library?.scanning_config.cron_schedule ?? '0 3 * * *');
  const [mode, setMode] = useState<'normal' | 'deep'>(library?.scanning_config.default_mode ?? 'normal');
  const [onStart, setOnStart] = useState(library?.scanning_config.scan_on_start ?? false);
  const problem = scheduled ? cronProblem(cron) : null;
  const save = useMutation({
    mutationFn: async () => {
      const scanning_config = { enabled: scheduled, cron_schedule: scheduled ? cron.trim() : null, default_mode: mode, scan_on_start: onStart };
      if (library) return ok(api.PATCH('/api/v1/libraries/{id}', { params: { path: { id: library.id } }, body: { name, path, scanning_config } }));
      const created = await ok(api.POST('/api/v1/libraries', { body: { name, path, scanning_config } }));
      await ok(api.POST('/api/v1/libraries/{id}/scan', { params: { path: { id: created.id }, query: {} } }));
      return created;
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['libraries'] });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!problem) save.mutate();
  };
  const prefix = library ? `edit-${library.id}` : 'new';
  return (
    <form className="card stack" onSubmit={submit} aria-label={library ? `Edit ${library.name}` : 'New library'}>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <div className="field">
        <label htmlFor={`${prefix}-path`}>Folder on the server</label>
        <div className="inline">
          <input id={`${prefix}-path`} required value={path} onChange={(e) => setPath(e.target.value)} spellCheck={false} />
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
      <label className="inline-label">
        <input type="checkbox" className="checkbox" checked={scheduled} onChange={(e) => setScheduled(e.target.checked)} />
        Scan on a schedule
      </label>
      {scheduled && (
        <label>
          Schedule (cron: minute hour day month weekday)
          <input value={cron} onChange={(e) => setCron(e.target.value)} aria-invalid={!!problem} aria-describedby={`${prefix}-cron-help`} spellCheck={false} />
          <span id={`${prefix}-cron-help`} className={problem ? 'error-text' : 'hint'}>
            {problem ?? 'Valid schedule. Example: 0 3 * * * scans every night at 3:00.'}
          </span>
        </label>
      )}
      <label className="inline-label">
        Scheduled scans are
        <select value={mode} onChange={(e) => setMode(e.target.value === 'deep' ? 'deep' : 'normal')}>
          <option value="normal">normal</option>
          <option value="deep">deep</option>
        </select>
      </label>
      <label className="inline-label">
        <input type="checkbox" className="checkbox" checked={onStart} onChange={(e) => setOnStart(e.target.checked)} />
        Scan when the server starts
      </label>
      <ErrorMessage error={save.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending || !!problem}>
          {library ? 'Save' : 'Add library and scan it'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
