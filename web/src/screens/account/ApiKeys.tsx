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

const PRESET_LABELS: Record<string, { label: string; hint: string }> = {
  reader_app: { label: 'Reader app', hint: 'Browse, download and read, and sync reading progress (OPDS apps).' },
  mobile_app: { label: 'Mobile app', hint: 'Browse, download and read; may edit book metadata.' },
  automation_script: { label: 'Automation script', hint: 'Manage libraries and tasks, e.g. start scans from a script.' },
  metadata_tool: { label: 'Metadata tool', hint: 'Read and edit series and book metadata.' },
};

/** Account → API keys: create one for a device (shown once, see NewApiKey.tsx), list and revoke them. */
export function ApiKeysScreen() {
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
      <h2 id="keys-heading">API keys</h2>
      <p className="hint">
        A key lets a reading app or a script use your account without your password. Name it after the device: reading statistics are
        counted per key.
      </p>
      {created ? (
        <NewApiKey created={created} onDone={() => setCreated(null)} />
      ) : (
        <form className="card stack key-form" onSubmit={submit} aria-label="Create an API key">
          <label>
            Name
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="Phone (Panels)" />
          </label>
          <fieldset className="choice-group">
            <legend>What may it do?</legend>
            {(presets.data ?? []).map((p) => (
              <label key={p.name} className="choice">
                <input type="radio" name="preset" value={p.name} checked={preset === p.name} onChange={() => setPreset(p.name)} />
                <span>
                  <strong>{PRESET_LABELS[p.name]?.label ?? p.name}</strong>
                  <span className="hint"> — {PRESET_LABELS[p.name]?.hint ?? p.permissions.join(', ')}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <label>
            Expires after
            <select value={expiry} onChange={(e) => setExpiry(e.target.value as ExpiryChoice)}>
              {EXPIRY_CHOICES.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          <ErrorMessage error={create.error ?? presets.error} />
          <button type="submit" className="primary" disabled={create.isPending}>
            Create key
          </button>
        </form>
      )}

      <h3>Your keys</h3>
      <ErrorMessage error={keys.error ?? revoke.error} />
      {keys.isPending ? (
        <p>Loading…</p>
      ) : !keys.data ? null : list.length === 0 ? (
        <p className="empty">No API keys yet — create one above to connect a reading app on your phone or tablet.</p>
      ) : (
        <ul className="row-list" aria-label="API keys">
          {list.map((k) => (
            <li key={k.id} className="row-item">
              <div className="row-main">
                <strong>{k.name}</strong>
                <span className="hint">
                  <code>colophon_{k.key_prefix}_…</code> · created {formatDate(k.created_at)} ·{' '}
                  {k.expires_at ? `expires ${formatDate(k.expires_at)}` : 'never expires'} ·{' '}
                  {k.last_used_at ? `last used ${formatDate(k.last_used_at)}` : 'never used'}
                </span>
              </div>
              <button
                type="button"
                className="small danger"
                disabled={revoke.isPending}
                onClick={() => {
                  if (window.confirm(`Revoke the key "${k.name}"? Apps using it stop working at once.`)) revoke.mutate(k.id);
                }}
              >
                Revoke<span className="visually-hidden"> {k.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <p className="hint">
        A Kobo e-reader gets its own key on the <Link to="/account/kobo">Kobo e-readers</Link> tab.
      </p>
    </section>
  );
}
