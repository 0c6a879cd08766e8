import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, usePrefetchQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { serverAddressesQuery } from '../../api/queries';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDate } from '../../lib/format';
import { EXPIRY_CHOICES, expiryFor, type ExpiryChoice } from '../../lib/opds-link';
import { NewApiKey } from './NewApiKey';

type CreatedKey = components['schemas']['CreatedApiKey'];

const PRESET_LABELS: Record<string, { label: MessageDescriptor; hint: MessageDescriptor }> = {
  reader_app: { label: msg`Reader app`, hint: msg`Browse, download and read, and sync reading progress (OPDS apps).` },
  mobile_app: { label: msg`Mobile app`, hint: msg`Browse, download and read; may edit book metadata.` },
  automation_script: { label: msg`Automation script`, hint: msg`Manage libraries and tasks, e.g. start scans from a script.` },
  metadata_tool: { label: msg`Metadata tool`, hint: msg`Read and edit series and book metadata.` },
};

/** Account → API keys: create one for a device (shown once, see NewApiKey.tsx), list and revoke them. */
export function ApiKeysScreen() {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: queryKeys.apiKeys.all, queryFn: () => ok(api.GET('/api/v1/api-keys')) });
  const presets = useQuery({
    queryKey: queryKeys.apiKeys.presets,
    queryFn: () => ok(api.GET('/api/v1/api-keys/presets')),
    staleTime: Infinity,
  });
  // Asked before a key is created, so that its QR code shows the address other devices use at once.
  usePrefetchQuery(serverAddressesQuery);
  const [name, setName] = useState('');
  const [preset, setPreset] = useState<'reader_app' | 'automation_script' | 'mobile_app' | 'metadata_tool'>('reader_app');
  const [expiry, setExpiry] = useState<ExpiryChoice>('1y');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/api-keys', { body: { name, preset, expires_at: expiryFor(expiry) } })),
    onSuccess: async (key) => {
      setCreated(key);
      setName('');
      await queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys.all });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys.all }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const list = keys.data?.data ?? [];

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">
        <Trans>API keys</Trans>
      </h2>
      <p className="hint">
        <Trans>
          A key lets a reading app or a script use your account without your password. Name it after the device: reading statistics are
          counted per key.
        </Trans>
      </p>
      {created ? (
        <NewApiKey created={created} onDone={() => setCreated(null)} />
      ) : (
        <form className="card stack key-form" onSubmit={submit} aria-label={t`Create an API key`}>
          <label>
            <Trans>Name</Trans>
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder={t`Phone (Panels)`} />
          </label>
          <fieldset className="choice-group">
            <legend>
              <Trans>What may it do?</Trans>
            </legend>
            {(presets.data ?? []).map((p) => {
              const known = PRESET_LABELS[p.name];
              return (
                <label key={p.name} className="choice">
                  <input type="radio" name="preset" value={p.name} checked={preset === p.name} onChange={() => setPreset(p.name)} />
                  <span>
                    <strong>{known ? i18n._(known.label) : p.name}</strong>
                    <span className="hint"> — {known ? i18n._(known.hint) : p.permissions.join(', ')}</span>
                  </span>
                </label>
              );
            })}
          </fieldset>
          <label>
            <Trans>Expires after</Trans>
            <select value={expiry} onChange={(e) => setExpiry(e.target.value as ExpiryChoice)}>
              {EXPIRY_CHOICES.map((c) => (
                <option key={c.id} value={c.id}>
                  {i18n._(c.label)}
                </option>
              ))}
            </select>
          </label>
          <ErrorMessage error={create.error ?? presets.error} />
          <button type="submit" className="primary" disabled={create.isPending}>
            <Trans>Create key</Trans>
          </button>
        </form>
      )}

      <h3>
        <Trans>Your keys</Trans>
      </h3>
      <ErrorMessage error={keys.error ?? revoke.error} />
      {keys.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : !keys.data ? null : list.length === 0 ? (
        <p className="empty">
          <Trans>No API keys yet — create one above to connect a reading app on your phone or tablet.</Trans>
        </p>
      ) : (
        <ul className="row-list" aria-label={t`API keys`}>
          {list.map((k) => {
            const { name: keyName, key_prefix: keyPrefix } = k;
            const createdAt = formatDate(k.created_at);
            const expiresAt = formatDate(k.expires_at);
            const lastUsedAt = formatDate(k.last_used_at);
            const expiry = k.expires_at ? t`expires ${expiresAt}` : t`never expires`;
            const use = k.last_used_at ? t`last used ${lastUsedAt}` : t`never used`;
            return (
              <li key={k.id} className="row-item">
                <div className="row-main">
                  <strong>{keyName}</strong>
                  <span className="hint">
                    <Trans>
                      <code>colophon_{keyPrefix}_…</code> · created {createdAt} · {expiry} · {use}
                    </Trans>
                  </span>
                </div>
                <button
                  type="button"
                  className="small danger"
                  disabled={revoke.isPending}
                  onClick={() => {
                    if (window.confirm(t`Revoke the key "${keyName}"? Apps using it stop working at once.`)) revoke.mutate(k.id);
                  }}
                >
                  <Trans>
                    Revoke<span className="visually-hidden"> {keyName}</span>
                  </Trans>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <p className="hint">
        <Trans>
          A Kobo e-reader gets its own key on the <Link to="/account/kobo">Kobo e-readers</Link> tab.
        </Trans>
      </p>
    </section>
  );
}
