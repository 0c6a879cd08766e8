import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../../api/client';
import { inboxKeys } from './keys';
import { librariesQuery, meQuery } from '../../../api/queries';
import { ErrorMessage } from '../../../components/ErrorView';
import { FolderPicker } from '../../../components/FolderPicker';

type Folder = components['schemas']['InboxFolder'];

/** What a template may say, written as typed (literal braces: values of the sentence, not its placeholders). */
const FIELDS = '{series} {title} {number} {volume} {year} {publisher} {ext} {original}';
const PADDED = '{number:03}';

const DEFAULT_TEMPLATE = '{series}/{series}[ v{volume:02}][ #{number:03}][ ({year})].{ext}';

/** Where sample books would go under a template, asked of the server as it is typed (a moment after the last key). */
function useTemplatePreview(template: string) {
  const [debounced, setDebounced] = useState(template);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(template), 300);
    return () => clearTimeout(timer);
  }, [template]);
  return useQuery({
    queryKey: [...inboxKeys.preview, debounced],
    queryFn: () => ok(api.POST('/api/v1/inbox/template-preview', { body: { template: debounced } })),
    enabled: debounced.trim() !== '',
    retry: false,
  });
}

function FolderForm({ folder, onDone }: { folder?: Folder; onDone(): void }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const me = useQuery(meQuery);
  const libraries = useQuery(librariesQuery);
  const [path, setPath] = useState(folder?.path ?? '');
  const [libraryId, setLibraryId] = useState(folder?.library_id ?? '');
  const [template, setTemplate] = useState(folder?.template ?? DEFAULT_TEMPLATE);
  const [autoFile, setAutoFile] = useState(folder?.auto_file ?? false);
  const [picking, setPicking] = useState(false);
  const preview = useTemplatePreview(template);
  const chosenLibrary = libraryId || libraries.data?.data[0]?.id || '';
  const save = useMutation({
    mutationFn: () => {
      const body = { path: path.trim(), library_id: chosenLibrary, template, auto_file: autoFile };
      return folder
        ? ok(api.PUT('/api/v1/inbox/folders/{id}', { params: { path: { id: folder.id } }, body }))
        : ok(api.POST('/api/v1/inbox/folders', { body }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: inboxKeys.all });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const canBrowse = me.data?.permissions.includes('system-admin') ?? false;
  const id = folder?.id ?? 'new';
  return (
    <form className="card stack" onSubmit={submit} aria-label={folder ? t`Change the inbox folder` : t`Add an inbox folder`}>
      <div className="field">
        <label htmlFor={`inbox-path-${id}`}>
          <Trans>Folder on the server (outside every library)</Trans>
        </label>
        <div className="inline">
          <input
            id={`inbox-path-${id}`}
            required
            value={path}
            onChange={(e) => setPath(e.target.value)}
            placeholder="/srv/downloads"
            spellCheck={false}
          />
          {canBrowse && (
            <button type="button" onClick={() => setPicking((p) => !p)} aria-expanded={picking}>
              <Trans>Browse…</Trans>
            </button>
          )}
        </div>
      </div>
      {picking && (
        <FolderPicker
          initialPath={path || undefined}
          onChoose={(chosen) => {
            setPath(chosen);
            setPicking(false);
          }}
          onCancel={() => setPicking(false)}
        />
      )}
      <label>
        <Trans>Files go into the library</Trans>
        <select value={chosenLibrary} onChange={(e) => setLibraryId(e.target.value)}>
          {(libraries.data?.data ?? []).map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      <div className="field">
        <label htmlFor={`inbox-template-${id}`}>
          <Trans>Naming template</Trans>
        </label>
        <input
          id={`inbox-template-${id}`}
          className="mono"
          required
          value={template}
          onChange={(e) => setTemplate(e.target.value)}
          spellCheck={false}
          aria-invalid={preview.isError}
          aria-describedby={`inbox-template-help-${id} inbox-template-preview-${id}`}
        />
        <span id={`inbox-template-help-${id}`} className="hint">
          <Trans>
            Fields: {FIELDS}; {PADDED} pads with zeros; [ ] around a part leaves it out when a field inside has no value; / makes folders.
          </Trans>
        </span>
        <div id={`inbox-template-preview-${id}`} aria-live="polite">
          {preview.error ? (
            <ErrorMessage error={preview.error} />
          ) : (
            preview.data && (
              <ul className="hint" aria-label={t`Examples`}>
                {preview.data.examples.map((e) => (
                  <li key={String(e.values.original)} className="mono">
                    {e.path ?? e.problem}
                  </li>
                ))}
              </ul>
            )
          )}
        </div>
      </div>
      <label className="check">
        <input type="checkbox" checked={autoFile} onChange={(e) => setAutoFile(e.target.checked)} />
        <Trans>File by itself when the match is certain (the series and number known, the series already in the library)</Trans>
      </label>
      <ErrorMessage error={save.error} />
      <div className="inline">
        <button type="submit" className="primary" disabled={save.isPending || !chosenLibrary}>
          {folder ? <Trans>Save</Trans> : <Trans>Add the folder</Trans>}
        </button>
        <button type="button" onClick={onDone}>
          <Trans>Cancel</Trans>
        </button>
      </div>
    </form>
  );
}

/** The inbox folders (for those who manage libraries): where new books are watched for, and how they are named. */
export function InboxFolders() {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const folders = useQuery({ queryKey: inboxKeys.folders, queryFn: () => ok(api.GET('/api/v1/inbox/folders')) });
  const libraries = useQuery(librariesQuery);
  const [editing, setEditing] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/inbox/folders/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: inboxKeys.all }),
  });
  const list = folders.data?.data ?? [];
  const libraryOf = (id: string) => libraries.data?.data.find((l) => l.id === id)?.name ?? id;
  return (
    <section aria-labelledby="inbox-folders-heading" className="stack">
      <div className="section-head">
        <h3 id="inbox-folders-heading">
          <Trans>Inbox folders</Trans>
        </h3>
        {editing === null && (
          <button type="button" onClick={() => setEditing('new')}>
            <Trans>Add an inbox folder</Trans>
          </button>
        )}
      </div>
      <ErrorMessage error={folders.error ?? remove.error} />
      {folders.data && list.length === 0 && editing === null && (
        <p className="empty">
          <Trans>
            No inbox folder yet. Add one: a downloads folder, for instance. Files copied there are proposed for review once complete.
          </Trans>
        </p>
      )}
      {editing === 'new' && <FolderForm onDone={() => setEditing(null)} />}
      <ul className="stack" aria-label={t`Inbox folders`}>
        {list.map((f) => {
          const library = libraryOf(f.library_id);
          const writing = f.watch.being_written.length;
          return (
            <li key={f.id} className="card stack">
              {editing === f.id ? (
                <FolderForm folder={f} onDone={() => setEditing(null)} />
              ) : (
                <>
                  <strong className="mono">{f.path}</strong>
                  <span>
                    <Trans>
                      Into {library}, named <span className="mono">{f.template}</span>
                    </Trans>
                  </span>
                  <span className="hint">
                    {f.watch.state === 'missing' ? (
                      <Trans>The folder is missing: nothing is taken until it is back.</Trans>
                    ) : writing > 0 ? (
                      <Trans>{writing} files are still being written.</Trans>
                    ) : f.auto_file ? (
                      <Trans>Watched; certain matches are filed by themselves.</Trans>
                    ) : (
                      <Trans>Watched; every file waits for review.</Trans>
                    )}
                  </span>
                  <div className="inline">
                    <button type="button" onClick={() => setEditing(f.id)}>
                      <Trans>Change</Trans>
                    </button>
                    <button type="button" disabled={remove.isPending} onClick={() => remove.mutate(f.id)}>
                      <Trans>Remove</Trans>
                    </button>
                  </div>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
