import { msg } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, Navigate, useNavigate } from '@tanstack/react-router';
import { useEffect, useState, type FormEvent } from 'react';
import { api, ok, toApiError, type components } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { setupStatusQuery } from '../api/queries';
import { getSession, startSession } from '../api/session';
import type { ScanEvent } from '../api/events';
import { followEventStream } from '../api/sse';
import { AccountFields } from '../components/AccountFields';
import { ErrorMessage } from '../components/ErrorView';
import { LibraryForm } from '../components/LibraryForm';
import { ProgressBar } from '../components/ProgressBar';

const route = getRouteApi('/setup');

const STEPS = [
  { key: 'administrator', label: msg`Administrator` },
  { key: 'library', label: msg`First library` },
  { key: 'scan', label: msg({ message: 'Scan', context: 'setup step' }) },
] as const;

/** How many of the series found the scan step names: the rest are one link away, on the library's page. */
const FOUND_SHOWN = 8;

function Steps({ current }: { current: number }) {
  const { t, i18n } = useLingui();
  return (
    <ol className="wizard-steps" aria-label={t`Setup steps`}>
      {STEPS.map(({ key, label }, i) => (
        <li key={key} aria-current={i === current ? 'step' : undefined} className={i < current ? 'done' : i === current ? 'current' : ''}>
          {i18n._(label)}
        </li>
      ))}
    </ol>
  );
}

/**
 * First run: create the administrator, add the first library (its folder picked on the server), scan it
 * with live progress, and land on the home page while series keep appearing.
 */
export function SetupWizard() {
  const { step, library } = route.useSearch();
  const status = useQuery(setupStatusQuery);
  if (status.isPending)
    return (
      <p className="page">
        <Trans>Loading…</Trans>
      </p>
    );
  if (status.error) return <ErrorMessage error={status.error} />;

  const required = status.data.setup_required;
  if (required) return <AdminStep />;
  if (!getSession()) return <Navigate to="/sign-in" search={{ redirect: '/setup?step=library' }} />;
  if (step === 'scan' && library) return <ScanStep libraryId={library} />;
  if (step === 'library') return <LibraryStep />;
  return <Navigate to="/" />;
}

function WizardFrame({ step, title, children }: { step: number; title: string; children: React.ReactNode }) {
  return (
    <div className="auth-page">
      <div className="card wizard">
        <p className="eyebrow">
          <Trans>Welcome to Colophon</Trans>
        </p>
        <Steps current={step} />
        <h1>{title}</h1>
        {children}
      </div>
    </div>
  );
}

function AdminStep() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ username: '', email: '', password: '', confirm: '' });
  const mismatch = form.confirm !== '' && form.confirm !== form.password;
  const create = useMutation({
    mutationFn: () =>
      ok(api.POST('/api/v1/setup/initialize', { body: { username: form.username, email: form.email, password: form.password } })),
    onSuccess: async (login) => {
      startSession(login);
      queryClient.setQueryData(setupStatusQuery.queryKey, (old) => (old ? { ...old, setup_required: false } : old));
      await navigate({ to: '/setup', search: { step: 'library' } });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!mismatch) create.mutate();
  };
  return (
    <WizardFrame step={0} title={t`Create the administrator`}>
      <p>
        <Trans>This account manages libraries, users and settings. You can add other users later.</Trans>
      </p>
      <form className="stack" onSubmit={submit}>
        <AccountFields value={form} onChange={(key, text) => setForm((f) => ({ ...f, [key]: text }))} />
        <label>
          <Trans>Repeat the password</Trans>
          <input
            type="password"
            autoComplete="new-password"
            required
            value={form.confirm}
            onChange={(e) => setForm((f) => ({ ...f, confirm: e.target.value }))}
            aria-invalid={mismatch}
          />
        </label>
        {mismatch && (
          <p className="error-text">
            <Trans>The two passwords differ.</Trans>
          </p>
        )}
        <ErrorMessage error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending || mismatch}>
          <Trans>Create administrator</Trans>
        </button>
      </form>
      <RestoreFromBackup />
    </WizardFrame>
  );
}

type Restored = components['schemas']['SetupRestoreResult'];

/** POST /setup/restore: a backup's file uploaded, or the name of one in the server's backups folder. */
async function restoreBackup(input: { file: File } | { name: string }): Promise<Restored> {
  const init: RequestInit =
    'file' in input
      ? {
          method: 'POST',
          body: (() => {
            const form = new FormData();
            form.append('file', input.file);
            return form;
          })(),
        }
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: input.name }) };
  const response = await fetch('/api/v1/setup/restore', init);
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw await toApiError(response, body);
  return body as Restored;
}

/**
 * "Restore from a backup" (as Immich offers): instead of a new administrator, the accounts, reading and lists of a
 * backup; then each library says whether its folder is here, before anything is scanned.
 */
function RestoreFromBackup() {
  const { i18n } = useLingui();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const restore = useMutation({
    mutationFn: () => restoreBackup(file ? { file } : { name: name.trim() }),
  });
  // The server is set up from now on: sign-in starts the app afresh (the setup state it holds is the old one).
  const signIn = () => window.location.assign('/sign-in');
  if (restore.data) {
    const missing = restore.data.libraries.filter((l) => !l.present);
    // As toLocaleString() shows it (date and time, numeric), in the interface's language.
    const when = i18n.date(restore.data.restored.created_at, {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    const rows = restore.data.restored.rows;
    return (
      <section className="stack" aria-labelledby="restored-heading">
        <h2 id="restored-heading">
          <Trans>Restored</Trans>
        </h2>
        <p role="status">
          <Trans>
            The backup of {when} is restored: <Plural value={rows} one={`${rows} row`} other={`${rows} rows`} />. Sign in with an account it
            holds.
          </Trans>
        </p>
        {missing.length > 0 && (
          <div role="alert">
            <p>
              <Trans>
                These libraries' folders are not on this server; their books are kept. Point each at its new folder under Administration →
                Libraries before scanning:
              </Trans>
            </p>
            <ul>
              {missing.map((l) => (
                <li key={l.id}>
                  {l.name}: <code>{l.path}</code>
                </li>
              ))}
            </ul>
          </div>
        )}
        <button type="button" className="primary" onClick={signIn}>
          <Trans>Sign in</Trans>
        </button>
      </section>
    );
  }
  return (
    <details className="stack restore-from-backup">
      <summary>
        <Trans>Restore from a backup instead</Trans>
      </summary>
      <p className="hint">
        <Trans>A file made by Administration → Backups or `colophon backup`: accounts, reading, lists and metadata come back.</Trans>
      </p>
      <label>
        <Trans>Backup file (.tar.gz)</Trans>
        <input type="file" accept=".gz,application/gzip" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </label>
      <label>
        <Trans>Or the name of a file in the server's backups folder</Trans>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="colophon-2026-12-01T03-00-00-000Z.tar.gz" />
      </label>
      <ErrorMessage error={restore.error} />
      {restore.isPending && (
        <p role="status">
          <Trans>Checking and restoring the backup…</Trans>
        </p>
      )}
      <button type="button" disabled={restore.isPending || (!file && !name.trim())} onClick={() => restore.mutate()}>
        <Trans>Restore</Trans>
      </button>
    </details>
  );
}

function LibraryStep() {
  const { t } = useLingui();
  const navigate = useNavigate();
  return (
    <WizardFrame step={1} title={t`Add your first library`}>
      <p>
        <Trans>
          A library is a folder on the server holding your comics, manga and books. Each folder of books inside becomes a series.
        </Trans>
      </p>
      <LibraryForm
        library={null}
        schedule={false}
        scanAfterCreate
        submitLabel={t`Add library and scan it`}
        onSaved={(created) => navigate({ to: '/setup', search: { step: 'scan', library: created.id } })}
      />
    </WizardFrame>
  );
}

function ScanStep({ libraryId }: { libraryId: string }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: queryKeys.libraries.scanStatus(libraryId),
    queryFn: () => ok(api.GET('/api/v1/libraries/{id}/scan-status', { params: { path: { id: libraryId } } })),
  });
  const series = useQuery({
    queryKey: queryKeys.series.ofSetupLibrary(libraryId),
    queryFn: () =>
      ok(api.GET('/api/v1/series', { params: { query: { library_id: libraryId, pageSize: FOUND_SHOWN, sort: 'date_added,desc' } } })),
  });
  const [live, setLive] = useState<ScanEvent | null>(null);
  // Idle: the scan the previous step asked for could not be started (or this address was opened by hand).
  const start = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/libraries/{id}/scan', { params: { path: { id: libraryId }, query: {} } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.libraries.scanStatus(libraryId) }),
  });

  useEffect(() => {
    const stream = followEventStream('/api/v1/scans/stream', (event) => {
      const data = event.data as ScanEvent;
      if (data.library_id !== libraryId) return;
      setLive(data);
      void queryClient.invalidateQueries({ queryKey: queryKeys.series.ofSetupLibrary(libraryId) });
      if (event.name !== 'scan_progress') void queryClient.invalidateQueries({ queryKey: queryKeys.libraries.scanStatus(libraryId) });
    });
    return () => stream.close();
  }, [libraryId, queryClient]);

  const state = live ? live.type.replace('scan_', '') : status.data?.state;
  const idle = state === 'idle';
  const counters = live ?? status.data?.counters;
  const finished = state === 'completed' || state === 'failed' || state === 'cancelled';
  const processed = live?.files_processed ?? status.data?.progress.current ?? 0;
  const total = live?.files_discovered ?? status.data?.progress.total ?? 0;
  const errors = counters?.errors ?? 0;
  const seriesCreated = counters?.series_created ?? 0;
  const booksAdded = counters?.books_added ?? 0;
  const more = series.data ? series.data.total - series.data.data.length : 0;

  return (
    <WizardFrame
      step={2}
      title={
        idle
          ? t`Scan your library`
          : finished
            ? state === 'completed'
              ? t`Your library is ready`
              : state === 'failed'
                ? t`The scan failed`
                : t`The scan cancelled`
            : t`Scanning your library`
      }
    >
      <ErrorMessage error={status.error} />
      {idle && (
        <>
          <p>
            <Trans>The library was added, but its scan has not started yet.</Trans>
          </p>
          <ErrorMessage error={start.error} />
          <p className="actions">
            <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
              <Trans>Start the scan</Trans>
            </button>
          </p>
        </>
      )}
      <div aria-live="polite" className="stack" style={idle ? { display: 'none' } : undefined}>
        <ProgressBar
          value={finished ? 1 : total > 0 ? processed / total : 0}
          label={t`Scan progress`}
          indeterminate={!finished && total === 0}
        />
        <p>
          <Trans>
            {processed} of <Plural value={total} one={`${total} file`} other={`${total} files`} /> processed
          </Trans>
          {' · '}
          <Plural value={seriesCreated} one={`${seriesCreated} series`} other={`${seriesCreated} series`} />
          {' · '}
          <Plural value={booksAdded} one={`${booksAdded} book`} other={`${booksAdded} books`} />
          {errors > 0 && (
            <>
              {' · '}
              {/* Which files and why: Administration → Analysis errors lists them. */}
              <Link to="/admin/analysis-errors">
                <Plural value={errors} one={`${errors} file could not be read`} other={`${errors} files could not be read`} />
              </Link>
            </>
          )}
        </p>
        {live?.error && <p className="error-text">{live.error}</p>}
      </div>
      {series.data && series.data.data.length > 0 && (
        <>
          <h2 className="small-heading">{finished ? <Trans>Series found</Trans> : <Trans>Series found so far</Trans>}</h2>
          <ul className="found-series">
            {series.data.data.map((s) => (
              <li key={s.id}>
                <Link to="/series/$seriesId" params={{ seriesId: s.id }}>
                  {s.metadata.title}
                </Link>
              </li>
            ))}
          </ul>
          {more > 0 && (
            <p>
              <Link to="/libraries/$libraryId" params={{ libraryId }}>
                <Trans>and {more} more</Trans>
              </Link>
            </p>
          )}
        </>
      )}
      {!finished && !idle && (
        <p className="hint">
          <Trans>
            You do not have to wait: the scan goes on in the background and new series appear on the home page as they are found.
          </Trans>
        </p>
      )}
      <Link to="/" className={idle ? 'button' : 'button primary'}>
        <Trans>Go to the home page</Trans>
      </Link>
    </WizardFrame>
  );
}
