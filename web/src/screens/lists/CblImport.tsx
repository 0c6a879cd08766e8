import { msg } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useId, useRef, useState } from 'react';
import { authHeaders, toApiError, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { meQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { BookFinder } from './BookFinder';

type Report = components['schemas']['CblImportReport'];
type Entry = components['schemas']['CblEntryReport'];

/** POST /read-lists/import (multipart): a dry run reports the matches; without it the list is made. */
async function importCbl(file: File, dryRun: boolean, resolutions: Record<string, string>, shared = false): Promise<Report> {
  const form = new FormData();
  form.append('file', file);
  form.append('dry_run', dryRun ? 'true' : 'false');
  if (shared) form.append('shared', 'true');
  if (Object.keys(resolutions).length > 0) form.append('resolutions', JSON.stringify(resolutions));
  const response = await fetch('/api/v1/read-lists/import', { method: 'POST', headers: authHeaders(), body: form });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw await toApiError(response, body);
  return body as Report;
}

const entryLabel = (e: Entry) =>
  `${e.series}${e.volume ? ` (${e.volume})` : ''}${e.number ? ` #${e.number}` : ''}${e.year ? `, ${e.year}` : ''}`;

const STATUS_LABEL = {
  matched: msg({ message: 'Matched', context: 'reading list entry' }),
  ambiguous: msg({ message: 'Ambiguous', context: 'reading list entry' }),
  missing: msg({ message: 'Missing', context: 'reading list entry' }),
} as const;

/**
 * The Read lists page's "Import a reading list (.cbl)" dialog: choose a file, see how its entries match the library
 * (a dry run: matched, ambiguous with the books each could be, missing), pick the books of the ambiguous ones, then
 * import. Entries left missing are kept in the list and filled when a scan adds their book.
 */
export function CblImportDialog({ onClose }: { onClose(): void }) {
  const { t, i18n } = useLingui();
  const dialog = useRef<HTMLDialogElement>(null);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [file, setFile] = useState<File | null>(null);
  const [choices, setChoices] = useState<Record<string, string>>({});
  // The books picked by hand for missing entries, by entry: what the entry shows instead of the search.
  const [picked, setPicked] = useState<Record<string, string>>({});
  const [shared, setShared] = useState(false);
  const canShare = useQuery(meQuery).data?.permissions.includes('read-lists-write') === true;
  const sharedId = useId();
  const titleId = useId();
  const fileId = useId();
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  const check = useMutation({ mutationFn: (f: File) => importCbl(f, true, {}) });
  const run = useMutation({
    mutationFn: () => importCbl(file as File, false, choices, canShare && shared),
    onSuccess: async (report) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.readLists.all });
      if (report.read_list) void navigate({ to: '/read-lists/$readListId', params: { readListId: report.read_list.id } });
      onClose();
    },
  });
  const report = check.data;
  const counts = report
    ? {
        matched: report.entries.filter((e) => e.status === 'matched').length,
        ambiguous: report.entries.filter((e) => e.status === 'ambiguous').length,
        missing: report.entries.filter((e) => e.status === 'missing').length,
      }
    : null;
  const unresolved = report ? report.entries.filter((e) => e.status === 'ambiguous' && !choices[String(e.index)]).length : 0;
  const { matched, ambiguous, missing } = counts ?? { matched: 0, ambiguous: 0, missing: 0 };
  const listName = report?.name ?? '';
  return (
    <dialog ref={dialog} className="app-dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>
        <Trans>Import a reading list (.cbl)</Trans>
      </h2>
      <div className="field">
        <label htmlFor={fileId}>
          <Trans>Reading list file</Trans>
        </label>
        <input
          id={fileId}
          type="file"
          accept=".cbl,application/xml,text/xml"
          onChange={(e) => {
            const chosen = e.target.files?.[0] ?? null;
            setFile(chosen);
            setChoices({});
            setPicked({});
            run.reset();
            if (chosen) check.mutate(chosen);
            else check.reset();
          }}
        />
      </div>
      {check.isPending && (
        <p role="status">
          <Trans>Matching the entries with the library…</Trans>
        </p>
      )}
      <ErrorMessage error={check.error} />
      {report && counts && (
        <>
          <h3>{report.name}</h3>
          <p role="status">
            <Trans>
              <Plural value={matched} one="# matched" other="# matched" />,{' '}
              <Plural value={ambiguous} one="# ambiguous" other="# ambiguous" />,{' '}
              <Plural value={missing} one="# missing" other="# missing" /> (missing entries are kept, and filled when a scan adds their
              book).
            </Trans>
          </p>
          <ol className="cbl-report" aria-label={t`Entries of the reading list`}>
            {report.entries.map((e) => {
              const label = entryLabel(e);
              const pickedLabel = picked[String(e.index)];
              return (
                <li key={e.index} className={`cbl-entry ${e.status}`} data-testid="cbl-entry">
                  <span>{label}</span>{' '}
                  <span className={`state-mark ${e.status}`}>
                    {i18n._(STATUS_LABEL[e.status])}
                    {e.duplicate ? (
                      <>
                        {' '}
                        <Trans>(already in the list)</Trans>
                      </>
                    ) : (
                      ''
                    )}
                  </span>
                  {e.status === 'ambiguous' && (
                    <label className="inline-label">
                      <Trans>Book for {label}</Trans>
                      <select
                        value={choices[String(e.index)] ?? ''}
                        onChange={(ev) => setChoices((c) => ({ ...c, [String(e.index)]: ev.target.value }))}
                      >
                        <option value="">{t`Not chosen (kept as missing)`}</option>
                        {(e.candidates ?? []).map((c) => (
                          <option key={c.book_id} value={c.book_id}>
                            {c.series_name}
                            {c.number ? ` #${c.number}` : ''}
                            {c.year ? ` (${c.year})` : ''}
                          </option>
                        ))}
                      </select>
                    </label>
                  )}
                  {e.status === 'missing' &&
                    (pickedLabel ? (
                      <span className="inline-label">
                        <Trans>Picked: {pickedLabel}</Trans>
                        <button
                          type="button"
                          className="small"
                          onClick={() => {
                            const key = String(e.index);
                            setPicked(({ [key]: _p, ...rest }) => rest);
                            setChoices(({ [key]: _c, ...rest }) => rest);
                          }}
                        >
                          <Trans>
                            Undo<span className="visually-hidden">: {label}</span>
                          </Trans>
                        </button>
                      </span>
                    ) : (
                      <BookFinder
                        entry={label}
                        onPick={(book) => {
                          setPicked((p) => ({ ...p, [String(e.index)]: book.label }));
                          setChoices((c) => ({ ...c, [String(e.index)]: book.id }));
                        }}
                      />
                    ))}
                </li>
              );
            })}
          </ol>
          {canShare && (
            <label htmlFor={sharedId} className="inline-label">
              <input id={sharedId} type="checkbox" className="checkbox" checked={shared} onChange={(ev) => setShared(ev.target.checked)} />
              <Trans>Shared with everyone</Trans>
            </label>
          )}
          {unresolved > 0 && (
            <p className="hint">
              <Plural
                value={unresolved}
                one="# ambiguous entries have no book chosen: they are kept as missing."
                other="# ambiguous entries have no book chosen: they are kept as missing."
              />
            </p>
          )}
        </>
      )}
      <ErrorMessage error={run.error} />
      <div className="actions">
        {report && (
          <button type="button" className="primary" disabled={run.isPending} onClick={() => run.mutate()}>
            <Trans>Import “{listName}”</Trans>
          </button>
        )}
        <button type="button" onClick={() => dialog.current?.close()}>
          <Trans>Cancel</Trans>
        </button>
      </div>
    </dialog>
  );
}
