import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ListBox, ListBoxItem } from 'react-aria-components';
import { api, ok } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { ErrorMessage } from './ErrorView';

/**
 * Browses folders on the server (the library must be readable by the server, not by this browser):
 * arrow keys move, Enter opens a folder, "Use this folder" picks the one shown.
 */
export function FolderPicker({
  initialPath,
  onChoose,
  onCancel,
}: {
  initialPath?: string;
  onChoose(path: string): void;
  onCancel(): void;
}) {
  const { t } = useLingui();
  const [path, setPath] = useState<string | undefined>(initialPath);
  const drives = useQuery({
    queryKey: queryKeys.filesystem.drives,
    queryFn: () => ok(api.GET('/api/v1/filesystem/drives')),
    staleTime: Infinity,
  });
  const listing = useQuery({
    queryKey: queryKeys.filesystem.browse(path),
    queryFn: () => ok(api.GET('/api/v1/filesystem/browse', { params: { query: path ? { path } : {} } })),
    retry: false,
  });
  const folders = listing.data?.entries.filter((e) => e.is_directory) ?? [];
  const shownPath = listing.data?.path ?? '';

  return (
    <section className="folder-picker" aria-label={t`Folder picker`}>
      <div className="inline folder-picker-bar">
        {drives.data && drives.data.length > 1 && (
          // Windows drives, or the folders this server allows libraries in (libraries.allowed_roots).
          <label>
            <Trans>Start at</Trans>
            <select
              value={drives.data.find((d) => (listing.data?.path ?? path)?.startsWith(d.path))?.path ?? drives.data[0]!.path}
              onChange={(e) => setPath(e.target.value)}
            >
              {drives.data.map((d) => (
                <option key={d.path} value={d.path}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="button" disabled={!listing.data?.parent} onClick={() => setPath(listing.data?.parent ?? undefined)}>
          <Trans>Up one level</Trans>
        </button>
        <code className="current-path" aria-live="polite">
          {listing.data?.path ?? path ?? '/'}
        </code>
      </div>
      <ErrorMessage error={listing.error} />
      {listing.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : folders.length === 0 ? (
        <p className="hint">
          <Trans>No folders here. Go up one level, or use this folder if your books are in it.</Trans>
        </p>
      ) : (
        <ListBox
          aria-label={t`Folders in ${shownPath}`}
          className="folder-list"
          items={folders}
          onAction={(key) => setPath(String(key))}
          selectionMode="none"
        >
          {(entry) => (
            <ListBoxItem id={entry.path} textValue={entry.name} className="folder-item">
              <span aria-hidden="true">📁</span> {entry.name}
            </ListBoxItem>
          )}
        </ListBox>
      )}
      {listing.data?.truncated && (
        <p className="hint">
          <Trans>Only the first 5000 entries are shown.</Trans>
        </p>
      )}
      <div className="inline">
        <button type="button" className="primary" disabled={!listing.data} onClick={() => listing.data && onChoose(listing.data.path)}>
          <Trans>Use this folder</Trans>
        </button>
        <button type="button" onClick={onCancel}>
          <Trans>Cancel</Trans>
        </button>
      </div>
    </section>
  );
}
