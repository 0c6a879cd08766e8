import { i18n } from '@lingui/core';
import { msg, plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { SavedNote } from '../../components/SavedNote';
import { formatDate, formatDateTime } from '../../lib/format';

type Setting = components['schemas']['Setting'];

const labelOf = (key: string) => key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
const NO_VALUE = msg({ message: 'default', context: 'setting value' });

/** A setting's value as text; no value is the default (in the active language: called while drawing). */
const show = (value: unknown) =>
  value === null || value === undefined ? i18n._(NO_VALUE) : typeof value === 'string' ? value : JSON.stringify(value);

/** Server settings: edit each (saved on change), reset to default, and see who changed what when. */
export function SettingsScreen() {
  const settings = useQuery({ queryKey: queryKeys.adminSettings.all, queryFn: () => ok(api.GET('/api/v1/admin/settings')) });
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">
        <Trans>Settings</Trans>
      </h2>
      <p className="hint">
        <Trans>Changes apply at once, on every instance within 5 seconds. Each change is kept in the setting's history.</Trans>
      </p>
      <ErrorMessage error={settings.error} />
      {settings.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !settings.data ? null : (settings.data ?? []).length === 0 ? (
        <p className="empty">
          <Trans>This server has no settings to change.</Trans>
        </p>
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
  const { t } = useLingui();
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

  const label = labelOf(setting.key);
  const defaultValue = show(setting.default);
  return (
    <li className="setting-row" aria-label={label}>
      <div className="setting-text">
        <label htmlFor={id}>{label}</label>
        <span className="hint" id={`${id}-desc`}>
          {setting.description}
          {setting.is_default ? ` ${t`(default)`}` : ` ${t`(default: ${defaultValue})`}`}
        </span>
      </div>
      <div className="setting-control">
        <SettingInput id={id} setting={setting} onChange={(v) => save.mutate(v)} />
        {!setting.is_default && (
          <button type="button" className="small" onClick={() => reset.mutate()}>
            <Trans>
              Reset<span className="visually-hidden"> {label}</span>
            </Trans>
          </button>
        )}
        <button type="button" className="small" aria-expanded={showHistory} onClick={() => setShowHistory((h) => !h)}>
          <Trans>
            History<span className="visually-hidden"> of {label}</span>
          </Trans>
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
  const { t } = useLingui();
  const history = useQuery({
    queryKey: queryKeys.adminSettings.history(settingKey),
    queryFn: () => ok(api.GET('/api/v1/admin/settings/{key}/history', { params: { path: { key: settingKey }, query: { pageSize: 20 } } })),
  });
  if (history.error) return <ErrorMessage error={history.error} />;
  if (history.isPending)
    return (
      <p>
        <Trans>Loading…</Trans>
      </p>
    );
  if (history.data.data.length === 0)
    return (
      <p className="hint history">
        <Trans>Never changed: it still has the value from the configuration file.</Trans>
      </p>
    );
  const label = labelOf(settingKey);
  const earlier = history.data.total - history.data.data.length;
  const oldest = formatDate(history.data.data.at(-1)?.changed_at);
  // The English has always said "changes" (there are several whenever this shows); the plural lets other languages be right.
  const earlierText = plural(earlier, {
    one: `…and ${earlier} earlier changes (${oldest} and before)`,
    other: `…and ${earlier} earlier changes (${oldest} and before)`,
  });
  return (
    <ol className="history" aria-label={t`History of ${label}`}>
      {history.data.data.map((c) => {
        const changedAt = c.changed_at;
        const when = formatDateTime(c.changed_at);
        const who = c.changed_by?.username ?? t({ message: 'someone', context: 'who changed a setting' });
        const before = show(c.old_value);
        const after = c.new_value === null ? t`default (reset)` : show(c.new_value);
        return (
          <li key={c.id}>
            <Trans>
              <time dateTime={changedAt}>{when}</time> — {who} changed {before} → {after}
            </Trans>
          </li>
        );
      })}
      {earlier > 0 && <li className="hint">{earlierText}</li>}
    </ol>
  );
}
