import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { SavedNote } from '../../components/SavedNote';
import { formatDate, formatDateTime } from '../../lib/format';

type Setting = components['schemas']['Setting'];

const labelOf = (key: string) => key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
const show = (value: unknown) =>
  value === null || value === undefined ? 'default' : typeof value === 'string' ? value : JSON.stringify(value);

/** Server settings: edit each (saved on change), reset to default, and see who changed what when. */
export function SettingsScreen() {
  const settings = useQuery({ queryKey: queryKeys.adminSettings.all, queryFn: () => ok(api.GET('/api/v1/admin/settings')) });
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <p className="hint">Changes apply at once, on every instance within 5 seconds. Each change is kept in the setting's history.</p>
      <ErrorMessage error={settings.error} />
      {settings.isPending ? (
        <p>Loading…</p>
      ) : !settings.data ? null : (settings.data ?? []).length === 0 ? (
        <p className="empty">This server has no settings to change.</p>
      ) : (
        <ul className="settings-list">
          {settings.data?.map((s) => (
            <SettingRow key={s.key} setting={s} />
          ))}
        </ul>
      )}
    </section>
  );
}

function SettingRow({ setting }: { setting: Setting }) {
  const queryClient = useQueryClient();
  const [showHistory, setShowHistory] = useState(false);
  const id = `setting-${setting.key}`;
  const replace = (updated: Setting) => {
    queryClient.setQueryData<Setting[]>(queryKeys.adminSettings.all, (old) => old?.map((s) => (s.key === updated.key ? updated : s)));
    void queryClient.invalidateQueries({ queryKey: queryKeys.adminSettings.history(setting.key) });
  };
  const save = useMutation({
    mutationFn: (value: unknown) =>
      ok(api.PUT('/api/v1/admin/settings/{key}', { params: { path: { key: setting.key } }, body: { value } })),
    onSuccess: replace,
  });
  const reset = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/admin/settings/{key}/reset', { params: { path: { key: setting.key } } })),
    onSuccess: replace,
  });

  return (
    <li className="setting-row" aria-label={labelOf(setting.key)}>
      <div className="setting-text">
        <label htmlFor={id}>{labelOf(setting.key)}</label>
        <span className="hint" id={`${id}-desc`}>
          {setting.description}
          {setting.is_default ? ' (default)' : ` (default: ${show(setting.default)})`}
        </span>
      </div>
      <div className="setting-control">
        <SettingInput id={id} setting={setting} onChange={(v) => save.mutate(v)} />
        {!setting.is_default && (
          <button type="button" className="small" onClick={() => reset.mutate()}>
            Reset<span className="visually-hidden"> {labelOf(setting.key)}</span>
          </button>
        )}
        <button type="button" className="small" aria-expanded={showHistory} onClick={() => setShowHistory((h) => !h)}>
          History<span className="visually-hidden"> of {labelOf(setting.key)}</span>
        </button>
        <SavedNote save={save} />
      </div>
      <ErrorMessage error={save.error ?? reset.error} />
      {showHistory && <SettingHistory settingKey={setting.key} />}
    </li>
  );
}

/** Booleans save on click; text and numbers when the field is left or Enter is pressed (uncontrolled, keyed by the saved value). */
function SettingInput({ id, setting, onChange }: { id: string; setting: Setting; onChange(v: unknown): void }) {
  const describedBy = `${id}-desc`;
  if (typeof setting.default === 'boolean' || typeof setting.value === 'boolean') {
    return (
      <input
        id={id}
        type="checkbox"
        className="checkbox"
        aria-describedby={describedBy}
        checked={setting.value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  }
  const numeric = typeof setting.default === 'number' || typeof setting.value === 'number';
  const saved = show(setting.value);
  const commit = (draft: string) => {
    if (draft === saved) return;
    onChange(numeric ? Number(draft) : draft);
  };
  return (
    <input
      key={saved}
      id={id}
      type={numeric ? 'number' : 'text'}
      aria-describedby={describedBy}
      defaultValue={saved}
      onBlur={(e) => commit(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
    />
  );
}

function SettingHistory({ settingKey }: { settingKey: string }) {
  const history = useQuery({
    queryKey: queryKeys.adminSettings.history(settingKey),
    queryFn: () => ok(api.GET('/api/v1/admin/settings/{key}/history', { params: { path: { key: settingKey }, query: { pageSize: 20 } } })),
  });
  if (history.error) return <ErrorMessage error={history.error} />;
  if (history.isPending) return <p>Loading…</p>;
  if (history.data.data.length === 0)
    return <p className="hint history">Never changed: it still has the value from the configuration file.</p>;
  return (
    <ol className="history" aria-label={`History of ${labelOf(settingKey)}`}>
      {history.data.data.map((c) => (
        <li key={c.id}>
          <time dateTime={c.changed_at}>{formatDateTime(c.changed_at)}</time> — {c.changed_by?.username ?? 'someone'} changed{' '}
          {show(c.old_value)} → {c.new_value === null ? 'default (reset)' : show(c.new_value)}
        </li>
      ))}
      {history.data.total > history.data.data.length && (
        <li className="hint">
          …and {history.data.total - history.data.data.length} earlier changes ({formatDate(history.data.data.at(-1)?.changed_at)} and
          before)
        </li>
      )}
    </ol>
  );
}
