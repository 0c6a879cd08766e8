import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { formatBytes, formatDateTime, plural } from '../../lib/format';
import { saveDownload } from '../../lib/save-download';

/** Administration → Backups: the backups folder, Back up now, Download, Delete; the last failure in words. */
export function BackupsScreen() {
  const queryClient = useQueryClient();
  const backups = useQuery({ queryKey: queryKeys.backups, queryFn: () => ok(api.GET('/api/v1/admin/backups')) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.backups });
  const now = useMutation({ mutationFn: () => ok(api.POST('/api/v1/admin/backups')), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: (name: string) => ok(api.DELETE('/api/v1/admin/backups/{name}', { params: { path: { name } } })),
    onSuccess: refresh,
  });
  const save = useMutation({ mutationFn: (name: string) => saveDownload(`/api/v1/admin/backups/${encodeURIComponent(name)}`, name) });
  const data = backups.data?.data ?? [];
  return (
    <section aria-labelledby="backups-heading">
      <div className="section-head">
        <h2 id="backups-heading">Backups</h2>
        <button type="button" className="primary" disabled={now.isPending} onClick={() => now.mutate()}>
          Back up now
        </button>
      </div>
      <p className="hint">
        Accounts, keys, reading positions and history, lists, metadata fixes and chosen covers — what a rescan cannot rebuild. Scheduled
        under Settings (backup_schedule, backup_keep, backup_folder). A backup holds every account: keep its file as safe as the server.
      </p>
      {now.isSuccess && (
        <p className="hint" role="status">
          Backup started: follow it under Tasks; it appears here when it is complete.
        </p>
      )}
      {backups.data?.last_failure && (
        <p className="error-text" role="alert">
          {backups.data.last_failure.message} ({formatDateTime(backups.data.last_failure.at)})
        </p>
      )}
      <ErrorMessage error={backups.error ?? now.error ?? remove.error ?? save.error} />
      {backups.isPending && <p role="status">Loading the backups…</p>}
      {backups.data && (
        <p className="hint">
          Folder: <code>{backups.data.folder}</code>
        </p>
      )}
      {backups.data && data.length === 0 && (
        <p className="empty" role="status">
          No backup yet. Back up now, or wait for the schedule.
        </p>
      )}
      <ul className="stack sources">
        {data.map((b) => (
          <li key={b.name} className="row-item" aria-label={b.name}>
            <div className="row-main">
              <strong>{formatDateTime(b.created_at)}</strong>
              <span className="hint">
                {b.name} · {formatBytes(b.size)}
                {b.summary
                  ? ` · ${plural(b.summary.users, 'account')}, ${plural(b.summary.rows, 'row')} in ${b.summary.tables} tables, ${plural(b.summary.files, 'file')} · ${b.summary.engine}`
                  : ' · no readable manifest'}
              </span>
            </div>
            <div className="row-actions">
              <button type="button" disabled={save.isPending} onClick={() => save.mutate(b.name)}>
                Download
              </button>
              <button
                type="button"
                className="danger"
                disabled={remove.isPending}
                onClick={() => {
                  if (window.confirm(`Delete the backup ${b.name}? It cannot be restored afterwards.`)) remove.mutate(b.name);
                }}
              >
                Delete
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
