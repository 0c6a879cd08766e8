import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { collectionsQuery, meQuery, readListsQuery, serverAddressesQuery } from '../../api/queries';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { formatDate, formatWhen } from '../../lib/format';
import { KOBO_HOST_PLACEHOLDER, koboTemplateFor } from '../../lib/kobo-line';
import { shareableAddress } from '../../lib/server-address';
import { AddressNote, CopyField } from './NewApiKey';

type KoboDevice = components['schemas']['KoboDevice'];
type Selection = components['schemas']['KoboSelection'];

/** Screens of common Kobo models (portrait pixels), for the comics' page size; docs/kobo.md. */
const SCREENS = [
  { label: 'Kobo Clara (1072 × 1448)', width: 1072, height: 1448 },
  { label: 'Kobo Libra (1264 × 1680)', width: 1264, height: 1680 },
  { label: 'Kobo Elipsa (1404 × 1872)', width: 1404, height: 1872 },
  { label: 'Kobo Sage (1440 × 1920)', width: 1440, height: 1920 },
] as const;
const ORIGINAL = 'original';
const screenValue = (screen: Selection['screen']) => (screen ? `${screen.width}x${screen.height}` : ORIGINAL);

/** What a Kobo's key may do: the sync, and what the sync itself reads and writes. */
const KOBO_PERMISSIONS = ['kobo-sync', 'books-read', 'pages-read', 'progress-read', 'progress-write'] as const;
const KOBO_QUERY_KEY = ['me', 'kobo'] as const;

/**
 * Account → Kobo e-readers: add a Kobo (an API key with kobo-sync) and show the exact line to paste into
 * the device's `Kobo eReader.conf`; per device, choose what syncs. See docs/kobo.md.
 */
export function KoboDevices() {
  const queryClient = useQueryClient();
  const me = useQuery(meQuery);
  const allowed = me.data?.permissions.includes('kobo-sync') ?? false;
  const setup = useQuery({ queryKey: KOBO_QUERY_KEY, queryFn: () => ok(api.GET('/api/v1/me/kobo')), enabled: allowed });
  const addresses = useQuery({ ...serverAddressesQuery, enabled: allowed });
  const [chosen, setChosen] = useState<string | null>(null);
  const address = shareableAddress(addresses.data, addresses.isError, window.location.origin, chosen);
  const [name, setName] = useState('');
  const [newKey, setNewKey] = useState<string | null>(null);
  const template = setup.data?.api_endpoint_template ?? '';
  const endpoint = koboTemplateFor(template, addresses.data?.base_url, address);
  const line = newKey === null ? null : endpoint.template.replace('{api_key}', newKey);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/api-keys', { body: { name, permissions: [...KOBO_PERMISSIONS] } })),
    onSuccess: async (key) => {
      setNewKey(key.key);
      setName('');
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: KOBO_QUERY_KEY }),
        queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys.all }),
      ]);
    },
  });
  if (me.isPending || (allowed && setup.isPending))
    return (
      <section aria-labelledby="kobo-heading">
        <h2 id="kobo-heading">Kobo e-readers</h2>
        <p role="status">Loading your Kobo e-readers…</p>
      </section>
    );
  if (!allowed || !setup.data)
    return (
      <section aria-labelledby="kobo-heading">
        <h2 id="kobo-heading">Kobo e-readers</h2>
        {me.error || setup.error ? (
          <ErrorMessage error={me.error ?? setup.error} />
        ) : (
          <p className="hint">Kobo sync is not enabled for your account — ask an administrator.</p>
        )}
      </section>
    );
  if (!setup.data.enabled)
    return (
      <section aria-labelledby="kobo-heading">
        <h2 id="kobo-heading">Kobo e-readers</h2>
        <p className="hint">
          Kobo sync is turned off on this server (<code>kobo.enabled: false</code> in its configuration) — ask its administrator.
        </p>
      </section>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <section aria-labelledby="kobo-heading">
      <h2 id="kobo-heading">Kobo e-readers</h2>
      <p className="hint">
        A Kobo syncs its library with Colophon: your books appear on it, comics included, and the reading position comes back. One key per
        device.
      </p>
      {line ? (
        <div className="card stack kobo-connect" aria-label="Connect your Kobo">
          <p>
            Connect the Kobo by USB, open <code>.kobo/Kobo/Kobo eReader.conf</code> and, in the <code>[OneStoreServices]</code> section,
            replace the <code>api_endpoint=</code> line with this one. It holds the key, shown only now.
          </p>
          {address.kind === 'loading' ? (
            <p className="hint" role="status">
              Finding the address a Kobo reaches this server by…
            </p>
          ) : (
            <AddressNote address={address} onChoose={setChosen} onRetry={() => void addresses.refetch()} />
          )}
          <CopyField label="Line for Kobo eReader.conf" value={line} multiline />
          {endpoint.placeholder && address.kind !== 'loading' && (
            <p className="warning-note">
              No address a Kobo can reach this server at is known, so the line says <span className="mono">{KOBO_HOST_PLACEHOLDER}</span>:
              replace it with the server&apos;s name or address on your network before saving the file — or set{' '}
              <code>server.public_url</code> and add the Kobo again.
            </p>
          )}
          <p className="hint">
            Eject the Kobo and tap Sync. If Colophon runs on a port other than 80 or 443, or behind a proxy, set{' '}
            <code>server.public_url</code>.
          </p>
          <button type="button" onClick={() => setNewKey(null)}>
            Done
          </button>
        </div>
      ) : (
        <form className="card stack key-form" onSubmit={submit} aria-label="Add a Kobo">
          <label>
            Device name
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="Kobo Libra" />
          </label>
          <ErrorMessage error={create.error} />
          <button type="submit" className="primary" disabled={create.isPending}>
            Add a Kobo
          </button>
        </form>
      )}
      <ErrorMessage error={setup.error} />
      {setup.data.devices.length === 0 ? (
        <p className="empty">No Kobo added yet — name one above to get the line its configuration needs.</p>
      ) : (
        <ul className="row-list" aria-label="Kobo devices">
          {setup.data.devices.map((d) => (
            <KoboDeviceCard key={d.api_key_id} device={d} />
          ))}
        </ul>
      )}
    </section>
  );
}

function KoboDeviceCard({ device }: { device: KoboDevice }) {
  const queryClient = useQueryClient();
  const collections = useQuery(collectionsQuery);
  const readLists = useQuery(readListsQuery);
  const [selection, setSelection] = useState<Selection>(device.selection);
  const chosen = Boolean(selection.collections?.length || selection.read_lists?.length || selection.want_to_read);
  const [only, setOnly] = useState(chosen);
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/api/v1/me/kobo/{api_key_id}', {
          params: { path: { api_key_id: device.api_key_id } },
          body: only
            ? selection
            : {
                greyscale: selection.greyscale ?? false,
                kepub: selection.kepub ?? true,
                ...(selection.screen !== undefined ? { screen: selection.screen } : {}),
              },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KOBO_QUERY_KEY }),
  });
  const toggle = (field: 'collections' | 'read_lists', id: string, on: boolean) =>
    setSelection((s) => ({ ...s, [field]: on ? [...(s[field] ?? []), id] : (s[field] ?? []).filter((x) => x !== id) }));

  return (
    <li className="row-item stack">
      <div className="row-main">
        <strong>{device.name}</strong>
        <span className="hint">{device.last_sync_at ? `last synced ${formatDate(device.last_sync_at)}` : 'not synced yet'}</span>
      </div>
      {device.delivery_problem && (
        <div className="delivery-problem" role="note" aria-label={`Last delivery problem on ${device.name}`}>
          <p>
            <strong>Last download not sent as asked:</strong> “{device.delivery_problem.book_title}”,{' '}
            {formatWhen(device.delivery_problem.at)}.
          </p>
          <p>{device.delivery_problem.message}</p>
        </div>
      )}
      <fieldset className="choice-group">
        <legend>What syncs to {device.name}</legend>
        <label className="choice">
          <input type="radio" checked={!only} onChange={() => setOnly(false)} name={`kobo-all-${device.api_key_id}`} />
          <span>Every book I can see</span>
        </label>
        <label className="choice">
          <input type="radio" checked={only} onChange={() => setOnly(true)} name={`kobo-all-${device.api_key_id}`} />
          <span>Only what I choose</span>
        </label>
        {only && (
          <div className="stack">
            <label className="choice">
              <input
                type="checkbox"
                checked={selection.want_to_read ?? false}
                onChange={(e) => setSelection((s) => ({ ...s, want_to_read: e.target.checked }))}
              />
              <span>Want to read</span>
            </label>
            {(collections.data?.data ?? []).map((c) => (
              <label key={c.id} className="choice">
                <input
                  type="checkbox"
                  checked={selection.collections?.includes(c.id) ?? false}
                  onChange={(e) => toggle('collections', c.id, e.target.checked)}
                />
                <span>Collection: {c.name}</span>
              </label>
            ))}
            {(readLists.data?.data ?? []).map((r) => (
              <label key={r.id} className="choice">
                <input
                  type="checkbox"
                  checked={selection.read_lists?.includes(r.id) ?? false}
                  onChange={(e) => toggle('read_lists', r.id, e.target.checked)}
                />
                <span>Read list: {r.name}</span>
              </label>
            ))}
          </div>
        )}
        <label className="choice">
          <input
            type="checkbox"
            checked={selection.greyscale ?? false}
            onChange={(e) => setSelection((s) => ({ ...s, greyscale: e.target.checked }))}
          />
          <span>Comics in shades of grey (black-and-white screen)</span>
        </label>
      </fieldset>
      <fieldset className="choice-group">
        <legend>How books reach {device.name}</legend>
        <label className="choice">
          <input
            type="checkbox"
            checked={selection.kepub ?? true}
            onChange={(e) => setSelection((s) => ({ ...s, kepub: e.target.checked }))}
          />
          <span>EPUBs as KEPUB (the Kobo&apos;s own format: faster pages, reading statistics, exact positions)</span>
        </label>
        <label>
          Screen size for comics and PDFs
          <select
            value={screenValue(selection.screen)}
            onChange={(e) => {
              const value = e.target.value;
              const [width, height] = value.split('x').map(Number);
              setSelection((s) => ({ ...s, screen: value === ORIGINAL || !width || !height ? null : { width, height } }));
            }}
          >
            {SCREENS.map((screen) => (
              <option key={screen.label} value={`${screen.width}x${screen.height}`}>
                {screen.label}
              </option>
            ))}
            {selection.screen && !SCREENS.some((p) => screenValue(p) === screenValue(selection.screen)) && (
              <option value={screenValue(selection.screen)}>
                {selection.screen.width} × {selection.screen.height}
              </option>
            )}
            <option value={ORIGINAL}>Original size</option>
          </select>
        </label>
        <p className="hint">Pages are fitted to the screen, never enlarged. A change sends the books it concerns again at the next sync.</p>
      </fieldset>
      <ErrorMessage error={save.error} />
      <button type="button" className="small" disabled={save.isPending} onClick={() => save.mutate()}>
        {save.isSuccess ? 'Saved' : 'Save'}
        <span className="visually-hidden"> settings of {device.name}</span>
      </button>
    </li>
  );
}
