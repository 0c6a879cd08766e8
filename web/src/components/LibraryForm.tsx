import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok, type components } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { meQuery } from '../api/queries';
import { checkCron } from '../lib/cron';
import { ErrorMessage } from './ErrorView';
import { FolderPicker } from './FolderPicker';

type Library = components['schemas']['Library'];
type ScanningConfig = components['schemas']['ScanningConfig'];

/** How a next run is told: "Wed, Nov 25, 03:00" in the interface's language. */
const NEXT_RUN: Intl.DateTimeFormatOptions = { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };

const DEFAULT_CONFIG: ScanningConfig = {
  enabled: false,
  cron_schedule: null,
  default_mode: 'normal',
  scan_on_start: false,
  import_lists: true,
  watch: true,
  watch_poll_seconds: null,
  watch_quiet_seconds: 10,
  write_comicinfo: false,
  exclude: [],
  media_type: 'auto',
  identify_after_scan: false,
  identify_schedule: null,
};

export interface LibraryFormProps {
  /** The library to edit; null adds one. */
  library: Library | null;
  /**
   * After the save (and the start of the first scan, with `scanAfterCreate`: `scanTaskId` is its task). The library
   * exists even when its scan could not be started (`scanError`): the form is done, the caller says so.
   */
  onSaved(library: Library, scanTaskId?: string, scanError?: unknown): void | Promise<void>;
  /** Shows a Cancel button. */
  onCancel?(): void;
  /** The heading and the form's name; without it the form has neither (the setup wizard titles its own step). */
  title?: string;
  /** The automatic-scanning fields (schedule, mode, scan on start); the setup wizard leaves them for later. */
  schedule?: boolean;
  /** Starts a scan of a library just created. */
  scanAfterCreate?: boolean;
  submitLabel?: string;
}

/**
 * Adding or editing a library, one form for the setup wizard and the administration: a name, the folder picked on
 * the server (which names the library when no name is typed), and the scan schedule checked as it is typed.
 */
export function LibraryForm({
  library,
  onSaved,
  onCancel,
  title,
  schedule = true,
  scanAfterCreate = false,
  submitLabel,
}: LibraryFormProps) {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const [name, setName] = useState(library?.name ?? '');
  const [path, setPath] = useState(library?.path ?? '');
  // A new library is named after its folder, typed or browsed to, until a name is typed (clearing it resumes).
  const [nameFollowsFolder, setNameFollowsFolder] = useState(!library);
  const choosePath = (value: string) => {
    setPath(value);
    if (nameFollowsFolder) setName(value.split(/[\\/]/).filter(Boolean).pop() ?? '');
  };
  const [picking, setPicking] = useState(false);
  // The server's folders are an administrator's to browse; a maintainer who may add libraries types the path.
  const me = useQuery(meQuery);
  const canBrowse = me.data?.permissions.includes('system-admin') ?? false;
  const [config, setConfig] = useState<ScanningConfig>(library?.scanning_config ?? DEFAULT_CONFIG);
  // The globs as typed (blank lines kept while typing); the configuration gets the non-empty lines.
  const [excludeText, setExcludeText] = useState(config.exclude.join('\n'));
  const cronText = config.cron_schedule ?? '';
  const cron = checkCron(cronText);
  const cronMissing = config.enabled && cronText.trim() === '';
  const refreshText = config.identify_schedule ?? '';
  const refresh = checkCron(refreshText);
  const nextRuns = cron.ok ? cron.nextRuns.map((d) => i18n.date(d, NEXT_RUN)).join(' · ') : '';
  const nextRefresh = refresh.ok && refresh.nextRuns.length > 0 ? i18n.date(refresh.nextRuns[0]!, NEXT_RUN) : '';
  const save = useMutation({
    mutationFn: async () => {
      const scanning_config = {
        ...config,
        cron_schedule: cronText.trim() === '' ? null : cronText.trim(),
        identify_schedule: refreshText.trim() === '' ? null : refreshText.trim(),
      };
      if (library)
        return {
          saved: await ok(
            api.PUT('/api/v1/libraries/{id}', { params: { path: { id: library.id } }, body: { name, path, scanning_config } }),
          ),
        };
      const created = await ok(api.POST('/api/v1/libraries', { body: { name, path, scanning_config } }));
      if (!scanAfterCreate) return { saved: created };
      try {
        const task = await ok(api.POST('/api/v1/libraries/{id}/scan', { params: { path: { id: created.id }, query: {} } }));
        return { saved: created, scanTaskId: task.id };
      } catch (scanError) {
        // Created all the same: failing the form here would offer to create it again, which its folder now refuses.
        return { saved: created, scanError };
      }
    },
    onSuccess: async ({ saved, scanTaskId, scanError }) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.libraries.all });
      await onSaved(saved, scanTaskId, scanError);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (cron.ok && !cronMissing && refresh.ok) save.mutate();
  };

  return (
    <form className={title ? 'card stack library-form' : 'stack'} onSubmit={submit} aria-label={title}>
      {title && <h3>{title}</h3>}
      <label>
        <Trans>Name</Trans>
        <input
          required
          maxLength={200}
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setNameFollowsFolder(e.target.value === '');
          }}
          placeholder={t`Comics`}
        />
      </label>
      <div className="field">
        <label htmlFor="library-folder">
          <Trans>Folder on the server</Trans>
        </label>
        <div className="inline">
          <input
            id="library-folder"
            required
            value={path}
            onChange={(e) => choosePath(e.target.value)}
            placeholder="/srv/comics"
            spellCheck={false}
          />
          {canBrowse && (
            <button type="button" onClick={() => setPicking((p) => !p)} aria-expanded={picking}>
              <Trans>Browse…</Trans>
            </button>
          )}
        </div>
      </div>
      {picking && canBrowse && (
        <FolderPicker
          initialPath={path || undefined}
          onChoose={(chosen) => {
            choosePath(chosen);
            setPicking(false);
          }}
          onCancel={() => setPicking(false)}
        />
      )}
      {schedule && (
        <fieldset className="stack">
          <legend>
            <Trans>Automatic scanning</Trans>
          </legend>
          <label className="check">
            <input type="checkbox" checked={config.enabled} onChange={(e) => setConfig({ ...config, enabled: e.target.checked })} />
            <Trans>Scan on a schedule</Trans>
          </label>
          <div className="field">
            <label htmlFor="library-cron">
              <Trans>Schedule (cron: minute hour day-of-month month day-of-week)</Trans>
            </label>
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
                  ? t`A schedule is needed to scan automatically.`
                  : cron.nextRuns.length > 0
                    ? t`Next runs: ${nextRuns}`
                    : t`No schedule: scans run only when started here.`}
            </span>
          </div>
          <label>
            <Trans>Scheduled scan mode</Trans>
            <select
              value={config.default_mode}
              onChange={(e) => setConfig({ ...config, default_mode: e.target.value as ScanningConfig['default_mode'] })}
            >
              <option value="normal">{t`Normal: new and changed files only`}</option>
              <option value="deep">{t`Deep: re-read every file`}</option>
            </select>
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={config.scan_on_start}
              onChange={(e) => setConfig({ ...config, scan_on_start: e.target.checked })}
            />
            <Trans>Scan when the server starts</Trans>
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={config.import_lists}
              onChange={(e) => setConfig({ ...config, import_lists: e.target.checked })}
            />
            <Trans>Make collections and read lists from the books' ComicInfo (SeriesGroup, StoryArc)</Trans>
          </label>
          <label className="check">
            <input type="checkbox" checked={config.watch} onChange={(e) => setConfig({ ...config, watch: e.target.checked })} />
            <Trans>Watch the folder: new and changed files are scanned by themselves</Trans>
          </label>
          <label>
            <Trans>Poll every (seconds, for network shares and containers; empty: file-system events)</Trans>{' '}
            <input
              type="number"
              min={1}
              value={config.watch_poll_seconds ?? ''}
              onChange={(e) => setConfig({ ...config, watch_poll_seconds: e.target.value === '' ? null : Number(e.target.value) })}
            />
          </label>
          <label>
            <Trans>Exclude (globs, one per line, e.g. **/extras/**)</Trans>{' '}
            <textarea
              rows={2}
              value={excludeText}
              onChange={(e) => {
                setExcludeText(e.target.value);
                setConfig({
                  ...config,
                  exclude: e.target.value
                    .split('\n')
                    .map((line) => line.trim())
                    .filter((line) => line !== ''),
                });
              }}
            />
          </label>
        </fieldset>
      )}
      {schedule && (
        <fieldset className="stack">
          <legend>
            <Trans>Metadata</Trans>
          </legend>
          <label className="check">
            <input
              type="checkbox"
              checked={config.write_comicinfo}
              onChange={(e) => setConfig({ ...config, write_comicinfo: e.target.checked })}
              aria-describedby="library-write-comicinfo-hint"
            />
            <Trans>Write metadata edits into the CBZ files (ComicInfo.xml)</Trans>
          </label>
          <span id="library-write-comicinfo-hint" className="hint">
            <Trans>
              Off: edits stay in Colophon's catalog. On: each edit of a book or series also rewrites its CBZ files with a new ComicInfo.xml
              (a copy made beside the file, then put in its place); CBR, PDF and EPUB files and read-only files are left as they are.
            </Trans>
          </span>
          <label>
            <Trans>Library type</Trans>
            <select
              value={config.media_type}
              onChange={(e) => setConfig({ ...config, media_type: e.target.value as ScanningConfig['media_type'] })}
              aria-describedby="library-media-type-hint"
            >
              <option value="auto">{t`Decided per series (books: EPUB and PDF; manga: Japanese, Korean, Chinese)`}</option>
              <option value="manga">{t`Manga`}</option>
              <option value="comics">{t`Comics`}</option>
              <option value="books">{t`Books`}</option>
            </select>
          </label>
          <span id="library-media-type-hint" className="hint">
            <Trans>Which metadata sources are asked about its series (Administration → Metadata sources).</Trans>
          </span>
          <label className="check">
            <input
              type="checkbox"
              checked={config.identify_after_scan}
              onChange={(e) => setConfig({ ...config, identify_after_scan: e.target.checked })}
            />
            <Trans>After each scan, look up new series in the metadata sources that are turned on</Trans>
          </label>
          <div className="field">
            <label htmlFor="library-refresh">
              <Trans>Refresh matched series on a schedule (cron; empty: never)</Trans>
            </label>
            <input
              id="library-refresh"
              className="mono"
              value={refreshText}
              onChange={(e) => setConfig({ ...config, identify_schedule: e.target.value })}
              placeholder="0 4 * * 0"
              spellCheck={false}
              aria-invalid={!refresh.ok}
              aria-describedby="library-refresh-check"
            />
            <span id="library-refresh-check" className={refresh.ok ? 'hint' : 'error-text'} aria-live="polite">
              {!refresh.ok
                ? refresh.message
                : refresh.nextRuns.length > 0
                  ? t`Next refresh: ${nextRefresh}`
                  : t`No refresh: matched series keep what was fetched.`}
            </span>
          </div>
        </fieldset>
      )}
      <ErrorMessage error={save.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={save.isPending || !cron.ok || cronMissing || !refresh.ok}>
          {submitLabel ?? (library ? t`Save library` : t`Create library`)}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            <Trans>Cancel</Trans>
          </button>
        )}
      </div>
    </form>
  );
}
