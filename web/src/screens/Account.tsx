import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { api, ok, type components } from '../api/client';
import { meQuery, preferencesQuery } from '../api/queries';
import { ErrorMessage } from '../components/ErrorView';
import { formatDate } from '../lib/format';

type Preference = components['schemas']['Preference'];
type CreatedKey = components['schemas']['CreatedApiKey'];
type PresetName = components['schemas']['ApiKeyPresets'][number]['name'];

/** Choices of the preferences that take one of a few words (the server validates them again). */
const CHOICES: Record<string, string[]> = {
  theme: ['system', 'light', 'dark'],
  reading_direction: ['ltr', 'rtl', 'vertical', 'webtoon'],
  page_fit: ['width', 'height', 'screen', 'original'],
  image_format: ['original', 'webp', 'jpeg'],
};
const PRESET_LABELS: Record<PresetName, string> = {
  reader_app: 'Reader app',
  automation_script: 'Automation script',
  mobile_app: 'Mobile app',
  metadata_tool: 'Metadata tool',
};
const EXPIRY_DAYS = [
  ['never', 'Never'],
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', 'One year'],
] as const;

const label = (key: string) => key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

export function Account() {
  const me = useQuery(meQuery);
  return (
    <div className="page narrow-wide">
      <h1>Your account</h1>
      {me.data && (
        <p className="meta-line">
          {me.data.username} · {me.data.email} · {me.data.role}
        </p>
      )}
      <Preferences />
      <PasswordChange />
      <ApiKeys />
    </div>
  );
}

function PreferenceField({ pref }: { pref: Preference }) {
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (value: unknown) => ok(api.PUT('/api/v1/user/preferences/{key}', { params: { path: { key: pref.key } }, body: { value } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['preferences'] }),
  });
  const reset = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/user/preferences/{key}', { params: { path: { key: pref.key } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['preferences'] }),
  });
  const id = `pref-${pref.key}`;
  const choices = CHOICES[pref.key];
  let control: React.ReactNode;
  if (choices) {
    control = (
      <select id={id} value={String(pref.value)} onChange={(e) => save.mutate(e.target.value)}>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    );
  } else if (typeof pref.default === 'boolean') {
    control = <input id={id} type="checkbox" checked={pref.value === true} onChange={(e) => save.mutate(e.target.checked)} className="checkbox" />;
  } else if (typeof pref.default === 'number') {
    control = <input id={id} type="number" defaultValue={Number(pref.value)} onBlur={(e) => Number(e.target.value) !== pref.value && save.mutate(Number(e.target.value))} />;
  } else {
    control = (
      <input
        id={id}
        defaultValue={pref.value === null ? '' : String(pref.value)}
        onBlur={(e) => {
          const value = e.target.value === '' && pref.default === null ? null : e.target.value;
          if (value !== pref.value) save.mutate(value);
        }}
      />
    );
  }
  return (
    <div className="pref-row">
      <label htmlFor={id}>{label(pref.key)}</label>
      <div className="pref-control">{control}</div>
      <p className="hint">{pref.description}</p>
      {!pref.is_default && (
        <button type="button" className="small" onClick={() => reset.mutate()}>
          Reset<span className="visually-hidden"> {label(pref.key)}</span>
        </button>
      )}
      <ErrorMessage error={save.error ?? reset.error} />
    </div>
  );
}

function Preferences() {
  const prefs = useQuery(preferencesQuery);
  return (
    <section aria-labelledby="prefs-title">
      <h2 id="prefs-title">Preferences</h2>
      <ErrorMessage error={prefs.error} />
      <div className="card prefs">{prefs.data?.map((p) => <PreferenceField key={`${p.key}:${JSON.stringify(p.value)}`} pref={p} />)}</div>
    </section>
  );
}

function PasswordChange() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const mismatch = repeat !== '' && repeat !== next;
  const change = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/auth/change-password', { body: { current_password: current, new_password: next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setRepeat('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!mismatch) change.mutate();
  };
  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form className="card stack" onSubmit={submit} aria-label="Change your password">
        <label>
          Current password
          <input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
        </label>
        <label>
          New password
          <input type="password" autoComplete="new-password" required minLength={8} value={next} onChange={(e) => setNext(e.target.value)} />
        </label>
        <label>
          Repeat the new password
          <input type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} aria-invalid={mismatch} />
        </label>
        {mismatch && <p className="error-text">The two new passwords differ.</p>}
        <ErrorMessage error={change.error} />
        {change.isSuccess && <p role="status">Your password is changed.</p>}
        <button type="submit" disabled={change.isPending || mismatch}>
          Change password
        </button>
      </form>
    </section>
  );
}

/** The OPDS address with the key as Basic credentials (user `api`), the form most phone reader apps accept. */
export function opdsUrlWithKey(origin: string, key: string): string {
  const url = new URL('/opds/v1.2/catalog', origin);
  url.username = 'api';
  url.password = key;
  return url.toString();
}

function NewKey({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  const [qr, setQr] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const opds = opdsUrlWithKey(window.location.origin, created.key);
  useEffect(() => {
    void QRCode.toDataURL(opds, { margin: 1, width: 240 }).then(setQr);
  }, [opds]);
  const copy = async () => {
    await navigator.clipboard.writeText(created.key);
    setCopied(true);
  };
  return (
    <div className="card new-key" role="status">
      <h3>Key “{created.name}” created</h3>
      <p>Copy it now: it is shown only once.</p>
      <div className="inline">
        <code className="key-value" data-testid="new-key">
          {created.key}
        </code>
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy key'}
        </button>
      </div>
      <p className="hint">
        Scan with a phone reader app: the code holds the OPDS address <code>{new URL('/opds/v1.2/catalog', window.location.origin).toString()}</code> with this key as its password (user
        name <code>api</code>).
      </p>
      {qr && <img src={qr} alt={`QR code with the OPDS address and the key ${created.name}`} width={240} height={240} className="qr" />}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function ApiKeys() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => ok(api.GET('/api/v1/api-keys', { params: { query: { pageSize: 500 } } })) });
  const [name, setName] = useState('');
  const [preset, setPreset] = useState<PresetName | 'all'>('reader_app');
  const [expiry, setExpiry] = useState<(typeof EXPIRY_DAYS)[number][0]>('never');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/api-keys', {
          body: {
            name,
            ...(preset === 'all' ? {} : { preset }),
            ...(expiry === 'never' ? {} : { expires_at: new Date(Date.now() + Number(expiry) * 86_400_000).toISOString() }),
          },
        }),
      ),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className="hint">Keys let reader apps and scripts use your account. Name each after its device to see it in your reading statistics.</p>
      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      <form className="card stack" onSubmit={submit} aria-label="Create an API key">
        <label>
          Name
          <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="Phone" />
        </label>
        <div className="inline">
          <label className="inline-label">
            Permissions
            <select value={preset} onChange={(e) => setPreset(e.target.value as PresetName | 'all')}>
              {(Object.keys(PRESET_LABELS) as PresetName[]).map((p) => (
                <option key={p} value={p}>
                  {PRESET_LABELS[p]}
                </option>
              ))}
              <option value="all">Everything I can do</option>
            </select>
          </label>
          <label className="inline-label">
            Expires
            <select value={expiry} onChange={(e) => setExpiry(e.target.value as typeof expiry)}>
              {EXPIRY_DAYS.map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
          </label>
        </div>
        <ErrorMessage error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <ErrorMessage error={keys.error ?? revoke.error} />
      {keys.data?.data.length === 0 && <p className="empty">No API keys yet. Create one above for a reader app.</p>}
      <ul className="key-list">
        {keys.data?.data.map((k) => (
          <li key={k.id} className="card key-row" data-testid="api-key">
            <div>
              <strong>{k.name}</strong> <code>bindery_{k.key_prefix}_…</code>
              <p className="hint">
                Created {formatDate(k.created_at)} · last used {formatDate(k.last_used_at)} · {k.expires_at ? `expires ${formatDate(k.expires_at)}` : 'never expires'} · {k.permissions.length} permissions
              </p>
            </div>
            <button type="button" className="small" onClick={() => revoke.mutate(k.id)} disabled={revoke.isPending}>
              Revoke<span className="visually-hidden"> {k.name}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
