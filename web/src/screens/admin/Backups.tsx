import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { formatBytes, formatDateTime } from '../../lib/format';
import { saveDownload } from '../../lib/save-download';

/** Administration → Backups: the backups folder, Back up now, Download, Delete; the last failure in words. */
export function BackupsScreen() {
  const { t } = useLingui();
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
  const folder = backups.data?.folder;
  return (
    <section aria-labelledby="backups-heading">
      <div className="section-head">
        <h2 id="backups-heading">
          <Trans>Backups</Trans>
        </h2>
        <button type="button" className="primary" disabled={now.isPending} onClick={() => now.mutate()}>
          <Trans>Back up now</Trans>
        </button>
      </div>
      <p className="hint">
        <Trans>
          Accounts, keys, reading positions and history, lists, metadata fixes and chosen covers — what a rescan cannot rebuild. Scheduled
          under Settings (backup_schedule, backup_keep, backup_folder). A backup holds every account: keep its file as safe as the server.
        </Trans>
      </p>
      {now.isSuccess && (
        <p className="hint" role="status">
          <Trans>Backup started: follow it under Tasks; it appears here when it is complete.</Trans>
        </p>
      )}
      {backups.data?.last_failure && (
        <p className="error-text" role="alert">
          {backups.data.last_failure.message} ({formatDateTime(backups.data.last_failure.at)})
        </p>
      )}
      <ErrorMessage error={backups.error ?? now.error ?? remove.error ?? save.error} />
      {backups.isPending && (
        <p role="status">
          <Trans>Loading the backups…</Trans>
        </p>
      )}
      {backups.data && (
        <p className="hint">
          <Trans>
            Folder: <code>{folder}</code>
          </Trans>
        </p>
      )}
      {backups.data && data.length === 0 && (
        <p className="empty" role="status">
          <Trans>No backup yet. Back up now, or wait for the schedule.</Trans>
        </p>
      )}
      <ul className="stack sources">
        {data.map((b) => {
          const { name, summary } = b;
          let about = ` · ${t`no readable manifest`}`;
          if (summary) {
            const { users, rows, tables, files, engine } = summary;
            const accounts = plural(users, { one: `${users} account`, other: `${users} accounts` });
            const rowCount = plural(rows, { one: `${rows} row`, other: `${rows} rows` });
            const fileCount = plural(files, { one: `${files} file`, other: `${files} files` });
            // The English has always said "tables" (a backup holds dozens); the plural lets other languages be right.
            const content = plural(tables, {
              one: `${accounts}, ${rowCount} in ${tables} tables, ${fileCount}`,
              other: `${accounts}, ${rowCount} in ${tables} tables, ${fileCount}`,
            });
            about = ` · ${content} · ${engine}`;
          }
          return (
            <li key={b.name} className="row-item" aria-label={b.name}>
              <div className="row-main">
                <strong>{formatDateTime(b.created_at)}</strong>
                <span className="hint">
                  {b.name} · {formatBytes(b.size)}
                  {about}
                </span>
              </div>
              <div className="row-actions">
                <button type="button" disabled={save.isPending} onClick={() => save.mutate(b.name)}>
                  <Trans>Download</Trans>
                </button>
                <button
                  type="button"
                  className="danger"
                  disabled={remove.isPending}
                  onClick={() => {
                    if (window.confirm(t`Delete the backup ${name}? It cannot be restored afterwards.`)) remove.mutate(b.name);
                  }}
                >
                  <Trans>Delete</Trans>
                </button>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
