import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet } from '@tanstack/react-router';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { librariesQuery, meQuery, preferencesQuery, setupStatusQuery } from '../../api/queries';
import { getSession, startSession } from '../../api/session';
import { ErrorMessage } from '../../components/ErrorView';
import { SavedNote } from '../../components/SavedNote';
import { formatDate } from '../../lib/format';
import { EXPIRY_CHOICES, expiryFor, koreaderSyncUrl, opdsAccess, type ExpiryChoice } from '../../lib/opds-link';
import '../../admin.css';

type Preference = components['schemas']['Preference'];
type CreatedKey = components['schemas']['CreatedApiKey'];

/** The account area: tabs for preferences, password, API keys and reading statistics, each its own URL. */
export function AccountLayout() {
  const { data: me } = useQuery(meQuery);
  return (
    <div className="page section-page">
      <h1>Your account</h1>
      {me && (
        <p className="meta-line">
          {me.username} · {me.email} · {me.role}
        </p>
      )}
      <nav aria-label="Account" className="section-tabs">
        <Link to="/account" activeOptions={{ exact: true }}>
          Preferences
        </Link>
        <Link to="/account/password">Password</Link>
        <Link to="/account/api-keys">API keys</Link>
        <Link to="/account/stats">Reading statistics</Link>
      </nav>
      <Outlet />
    </div>
  );
}

/** Choices for the preferences whose values are a fixed set; anything else is edited by its value's type. */
const CHOICES: Record<string, Array<[string, string]>> = {
  theme: [
    ['system', 'Follow the system'],
    ['light', 'Light'],
    ['dark', 'Dark'],
  ],
  reading_direction: [
    ['ltr', 'Left to right'],
    ['rtl', 'Right to left (manga)'],
    ['vertical', 'Vertical'],
    ['webtoon', 'Webtoon (continuous)'],
  ],
  page_fit: [
    ['screen', 'Fit the screen'],
    ['width', 'Fit the width'],
    ['height', 'Fit the height'],
    ['original', 'Original size'],
  ],
  image_format: [
    ['original', 'As stored'],
    ['webp', 'WebP (smaller)'],
    ['jpeg', 'JPEG'],
  ],
};

const LABELS: Record<string, string> = {
  theme: 'Theme',
  reading_direction: 'Reading direction',
  page_fit: 'Page fit',
  double_page: 'Two pages side by side',
  language: 'Language',
  default_library_id: 'Library opened first',
  books_per_page: 'Items per page',
  show_read_books: 'Show books already read',
  image_format: 'Page image format',
};

const labelOf = (key: string) => LABELS[key] ?? key.replace(/_/g, ' ');

/** What the web app does with a preference, where the server's own description would not say it to a person. */
const DESCRIPTIONS: Record<string, string> = {
  default_library_id: 'The library the Libraries link opens. "All libraries" shows every library together.',
  show_read_books: 'Untick to hide books you have finished on series pages and in the books grid (a note there shows them again).',
  double_page: 'Ticked, two pages side by side; unticked, one page at a time. Until you choose, wide screens show two.',
};

/**
 * Preferences the web app has no use for, so not offered as if they did something: the grid loads as you scroll
 * (no pages to size: books_per_page is for other clients), and the interface has no translations (language).
 */
const NOT_FOR_THE_WEB_APP = new Set(['books_per_page', 'language']);

export function PreferencesScreen() {
  const preferences = useQuery(preferencesQuery);
  if (preferences.error) return <ErrorMessage error={preferences.error} />;
  if (preferences.isPending) return <p>Loading…</p>;
  return (
    <section aria-labelledby="prefs-heading">
      <h2 id="prefs-heading">Preferences</h2>
      <p className="hint">Changes are saved as you make them and follow you to every device.</p>
      <ul className="settings-list">
        {/* Object-valued preferences (the reader's settings) are edited in the reader itself. */}
        {preferences.data
          .filter((p) => (p.default === null || typeof p.default !== 'object') && !NOT_FOR_THE_WEB_APP.has(p.key))
          .map((p) => (
            <PreferenceRow key={p.key} preference={p} />
          ))}
      </ul>
    </section>
  );
}

function PreferenceRow({ preference }: { preference: Preference }) {
  const queryClient = useQueryClient();
  const id = `pref-${preference.key}`;
  const save = useMutation({
    mutationFn: (value: unknown) =>
      ok(api.PUT('/api/v1/user/preferences/{key}', { params: { path: { key: preference.key } }, body: { value } })),
    // Shown at once: a controlled checkbox or select would otherwise flip back until the server has answered.
    onMutate: (value) =>
      queryClient.setQueryData(preferencesQuery.queryKey, (old) =>
        old?.map((p) => (p.key === preference.key ? { ...p, value, is_default: false } : p)),
      ),
    onError: () => queryClient.invalidateQueries({ queryKey: preferencesQuery.queryKey }),
    onSuccess: (updated) =>
      queryClient.setQueryData(preferencesQuery.queryKey, (old) => old?.map((p) => (p.key === updated.key ? updated : p))),
  });
  const reset = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/user/preferences/{key}', { params: { path: { key: preference.key } } })),
    onSuccess: (updated) =>
      queryClient.setQueryData(preferencesQuery.queryKey, (old) => old?.map((p) => (p.key === updated.key ? updated : p))),
  });
  return (
    <li className="setting-row">
      <div className="setting-text">
        <label htmlFor={id}>{labelOf(preference.key)}</label>
        <span className="hint" id={`${id}-desc`}>
          {DESCRIPTIONS[preference.key] ?? preference.description}
        </span>
      </div>
      <div className="setting-control">
        <PreferenceInput id={id} preference={preference} onChange={(v) => save.mutate(v)} />
        {!preference.is_default && (
          <button
            type="button"
            className="small"
            onClick={() => reset.mutate()}
            aria-label={`Reset ${labelOf(preference.key)} to its default`}
          >
            Reset
          </button>
        )}
        <SavedNote save={save} />
      </div>
      <ErrorMessage error={save.error ?? reset.error} />
    </li>
  );
}

/**
 * The value a control shows: what the user just picked, at once, until the saved value changes. A controlled
 * checkbox or select re-rendered from the query data alone flips back for a moment after each click, until the
 * optimistic update reaches it (TanStack Query notifies on a later task); a quick second action then lands on the
 * old state.
 */
function useShownValue(saved: unknown): [unknown, (value: unknown) => void] {
  const [picked, setPicked] = useState<{ value: unknown; over: unknown } | null>(null);
  // Once the saved value moves (the optimistic update, the server's answer, a refetch after an error), it rules.
  if (picked && !Object.is(picked.over, saved)) setPicked(null);
  const shown = picked && Object.is(picked.over, saved) ? picked.value : saved;
  return [shown, (value) => setPicked({ value, over: saved })];
}

function PreferenceInput({ id, preference, onChange: save }: { id: string; preference: Preference; onChange(value: unknown): void }) {
  const libraries = useQuery({ ...librariesQuery, enabled: preference.key === 'default_library_id' });
  const [value, setShown] = useShownValue(preference.value);
  const onChange = (next: unknown) => {
    setShown(next);
    save(next);
  };
  const describedBy = `${id}-desc`;
  const choices = CHOICES[preference.key];
  if (choices) {
    return (
      <select id={id} aria-describedby={describedBy} value={String(value)} onChange={(e) => onChange(e.target.value)}>
        {choices.map(([v, label]) => (
          <option key={v} value={v}>
            {label}
          </option>
        ))}
      </select>
    );
  }
  if (preference.key === 'default_library_id') {
    return (
      <select
        id={id}
        aria-describedby={describedBy}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => onChange(e.target.value || null)}
      >
        <option value="">All libraries</option>
        {libraries.data?.data.map((l) => (
          <option key={l.id} value={l.id}>
            {l.name}
          </option>
        ))}
      </select>
    );
  }
  if (typeof preference.default === 'boolean') {
    return (
      <input
        id={id}
        type="checkbox"
        className="checkbox"
        aria-describedby={describedBy}
        checked={value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  }
  if (typeof preference.default === 'number')
    return <NumberInput id={id} describedBy={describedBy} value={Number(value)} onCommit={onChange} />;
  return <TextInput id={id} describedBy={describedBy} value={String(value ?? '')} onCommit={onChange} />;
}

/**
 * Text and numbers are saved when the field is left or Enter is pressed, not on every keystroke. The field is
 * uncontrolled and keyed by the saved value, so a value saved elsewhere replaces what is shown.
 */
function TextInput({ id, describedBy, value, onCommit }: { id: string; describedBy: string; value: string; onCommit(v: string): void }) {
  const commit = (draft: string) => draft !== value && onCommit(draft);
  return (
    <input
      key={value}
      id={id}
      aria-describedby={describedBy}
      defaultValue={value}
      onBlur={(e) => commit(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
    />
  );
}

function NumberInput({ id, describedBy, value, onCommit }: { id: string; describedBy: string; value: number; onCommit(v: number): void }) {
  const commit = (draft: string) => {
    const n = Number(draft);
    if (draft !== '' && Number.isFinite(n) && n !== value) onCommit(n);
  };
  return (
    <input
      key={value}
      id={id}
      type="number"
      inputMode="numeric"
      aria-describedby={describedBy}
      defaultValue={value}
      onBlur={(e) => commit(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
    />
  );
}

export function PasswordScreen() {
  const [form, setForm] = useState({ current: '', next: '', confirm: '' });
  const mismatch = form.confirm !== '' && form.confirm !== form.next;
  const change = useMutation({
    // The server ends every session of the account on a password change (its security stamp): this browser signs
    // in again with the new password at once, so only the other devices have to.
    mutationFn: async () => {
      const username = getSession()?.username;
      await ok(api.POST('/api/v1/auth/change-password', { body: { current_password: form.current, new_password: form.next } }));
      if (username) startSession(await ok(api.POST('/api/v1/auth/login', { body: { username, password: form.next } })));
    },
    onSuccess: () => setForm({ current: '', next: '', confirm: '' }),
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!mismatch) change.mutate();
  };
  return (
    <section aria-labelledby="password-heading" className="narrow-section">
      <h2 id="password-heading">Change your password</h2>
      <form className="stack" onSubmit={submit}>
        <label>
          Current password
          <input type="password" autoComplete="current-password" required value={form.current} onChange={set('current')} />
        </label>
        <label>
          New password
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            value={form.next}
            onChange={set('next')}
            aria-describedby="new-password-hint"
          />
        </label>
        <p id="new-password-hint" className="hint">
          At least 8 characters. Other browsers and apps signed in with your password are signed out; this one stays signed in.
        </p>
        <label>
          Repeat the new password
          <input
            type="password"
            autoComplete="new-password"
            required
            value={form.confirm}
            onChange={set('confirm')}
            aria-invalid={mismatch}
          />
        </label>
        {mismatch && <p className="error-text">The two passwords differ.</p>}
        <ErrorMessage error={change.error} />
        {change.isSuccess && (
          <p className="ok-text" role="status">
            Your password was changed.
          </p>
        )}
        <button type="submit" className="primary" disabled={change.isPending || mismatch}>
          Change password
        </button>
      </form>
    </section>
  );
}

const PRESET_LABELS: Record<string, { label: string; hint: string }> = {
  reader_app: { label: 'Reader app', hint: 'Browse, download and read, and sync reading progress (OPDS apps).' },
  mobile_app: { label: 'Mobile app', hint: 'Browse, download and read; may edit book metadata.' },
  automation_script: { label: 'Automation script', hint: 'Manage libraries and tasks, e.g. start scans from a script.' },
  metadata_tool: { label: 'Metadata tool', hint: 'Read and edit series and book metadata.' },
};

export function ApiKeysScreen() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => ok(api.GET('/api/v1/api-keys')) });
  const presets = useQuery({
    queryKey: ['api-keys', 'presets'],
    queryFn: () => ok(api.GET('/api/v1/api-keys/presets')),
    staleTime: Infinity,
  });
  const [name, setName] = useState('');
  const [preset, setPreset] = useState<'reader_app' | 'automation_script' | 'mobile_app' | 'metadata_tool'>('reader_app');
  const [expiry, setExpiry] = useState<ExpiryChoice>('1y');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/api-keys', { body: { name, preset, expires_at: expiryFor(expiry) } })),
    onSuccess: async (key) => {
      setCreated(key);
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
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
  const list = keys.data?.data ?? [];

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="hint">
        A key lets a reading app or a script use your account without your password. Name it after the device: reading statistics are
        counted per key.
      </p>
      {created ? (
        <NewKey created={created} onDone={() => setCreated(null)} />
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
                  <code>bindery_{k.key_prefix}_…</code> · created {formatDate(k.created_at)} ·{' '}
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
    </section>
  );
}

/** A QR code drawn on a canvas (the encoder is loaded only when one is shown). */
function QrCode({ text, label }: { text: string; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [qrError, setQrError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    void import('qrcode')
      .then(async ({ default: QRCode }) => {
        if (!cancelled && canvas.current) await QRCode.toCanvas(canvas.current, text, { width: 240, margin: 2, errorCorrectionLevel: 'M' });
      })
      .catch((err: unknown) => !cancelled && setQrError(err instanceof Error ? err.message : String(err)));
    return () => {
      cancelled = true;
    };
  }, [text]);
  return (
    <>
      <canvas ref={canvas} className="qr" role="img" aria-label={label} data-qr-text={text} />
      {qrError && <p className="error-text">The QR code could not be drawn: {qrError}</p>}
    </>
  );
}

/** The new key, shown once: copy it, or scan the QR code with the phone's reading app (and KOReader's sync). */
function NewKey({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  const access = opdsAccess(window.location.origin, created.key);
  const syncPath = useQuery(setupStatusQuery).data?.koreader_sync_path ?? null;
  const canSync = created.permissions.includes('progress-read') && created.permissions.includes('progress-write');

  return (
    <div className="card stack new-key" role="region" aria-label="New API key">
      <h3>Key “{created.name}” created</h3>
      <p>
        <strong>Copy it now:</strong> it is shown only once and cannot be recovered.
      </p>
      <CopyField label="API key" value={created.key} />
      <div className="qr-block">
        <QrCode text={access.qrText} label="QR code with the OPDS address and this key, for a phone reading app" />
        <div className="stack">
          <p className="hint">
            Scan this with a reading app (Panels, Chunky, KOReader…) to add this server's OPDS catalog with the key. Or enter the fields by
            hand:
          </p>
          <CopyField label="OPDS catalog URL" value={access.catalogUrl} />
          <CopyField label="Username" value={access.username} />
          <p className="hint">Password: the API key above.</p>
        </div>
      </div>
      {syncPath && canSync && (
        <div className="qr-block" role="group" aria-label="KOReader progress sync">
          <QrCode
            text={koreaderSyncUrl(window.location.origin, syncPath, created.key)}
            label="QR code with the KOReader sync server address and this key"
          />
          <div className="stack">
            <h4>KOReader progress sync</h4>
            <p className="hint">
              In KOReader, open Tools → Progress sync → Custom sync server and paste this address (or scan the code); any user name and
              password will do, the key in the address identifies you.
            </p>
            <CopyField label="KOReader sync server" value={koreaderSyncUrl(window.location.origin, syncPath, created.key)} />
          </div>
        </div>
      )}
      {syncPath && !canSync && (
        <p className="hint">This key cannot sync reading progress: for KOReader's progress sync, create one with the Reader app preset.</p>
      )}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** A read-only field with a copy button; falls back to selecting the text where the clipboard API is missing (plain HTTP). */
function CopyField({ label, value }: { label: string; value: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      input.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div className="field">
      <label htmlFor={`copy-${label}`}>{label}</label>
      <div className="inline">
        <input id={`copy-${label}`} ref={input} readOnly value={value} className="mono" onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
          <span className="visually-hidden"> {label}</span>
        </button>
      </div>
    </div>
  );
}
