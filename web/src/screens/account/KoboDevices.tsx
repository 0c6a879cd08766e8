import { Trans, useLingui } from '@lingui/react/macro';
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

/**
 * Screens of common Kobo models (portrait pixels), for the comics' page size; docs/kobo.md. Model names are the same
 * in every language: shown as "Kobo Clara (1072 × 1448)".
 */
const SCREENS = [
  { name: 'Kobo Clara', width: 1072, height: 1448 },
  { name: 'Kobo Libra', width: 1264, height: 1680 },
  { name: 'Kobo Elipsa', width: 1404, height: 1872 },
  { name: 'Kobo Sage', width: 1440, height: 1920 },
] as const;
const ORIGINAL = 'original';
const screenValue = (screen: Selection['screen']) => (screen ? `${screen.width}x${screen.height}` : ORIGINAL);

/** What a Kobo's key may do: the sync, and what the sync itself reads and writes. */
const KOBO_PERMISSIONS = ['kobo-sync', 'books-read', 'pages-read', 'progress-read', 'progress-write'] as const;
const KOBO_QUERY_KEY = ['me', 'kobo'] as const;
/** The example in the device-name field: a model's name, the same in every language. */
const EXAMPLE_DEVICE_NAME = 'Kobo Libra';

/**
 * Account → Kobo e-readers: add a Kobo (an API key with kobo-sync) and show the exact line to paste into
 * the device's `Kobo eReader.conf`; per device, choose what syncs. See docs/kobo.md.
 */
export function KoboDevices() {
  const { t } = useLingui();
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
  const hostPlaceholder = KOBO_HOST_PLACEHOLDER;
  if (me.isPending || (allowed && setup.isPending))
    return (
      <section aria-labelledby="kobo-heading">
        <h2 id="kobo-heading">
          <Trans>Kobo e-readers</Trans>
        </h2>
        <p role="status">
          <Trans>Loading your Kobo e-readers…</Trans>
        </p>
      </section>
    );
  if (!allowed || !setup.data)
    return (
      <section aria-labelledby="kobo-heading">
        <h2 id="kobo-heading">
          <Trans>Kobo e-readers</Trans>
        </h2>
        {me.error || setup.error ? (
          <ErrorMessage error={me.error ?? setup.error} />
        ) : (
          <p className="hint">
            <Trans>Kobo sync is not enabled for your account — ask an administrator.</Trans>
          </p>
        )}
      </section>
    );
  if (!setup.data.enabled)
    return (
      <section aria-labelledby="kobo-heading">
        <h2 id="kobo-heading">
          <Trans>Kobo e-readers</Trans>
        </h2>
        <p className="hint">
          <Trans>
            Kobo sync is turned off on this server (<code>kobo.enabled: false</code> in its configuration) — ask its administrator.
          </Trans>
        </p>
      </section>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <section aria-labelledby="kobo-heading">
      <h2 id="kobo-heading">
        <Trans>Kobo e-readers</Trans>
      </h2>
      <p className="hint">
        <Trans>
          A Kobo syncs its library with Colophon: your books appear on it, comics included, and the reading position comes back. One key per
          device.
        </Trans>
      </p>
      {line ? (
        <div className="card stack kobo-connect" aria-label={t`Connect your Kobo`}>
          <p>
            <Trans>
              Connect the Kobo by USB, open <code>.kobo/Kobo/Kobo eReader.conf</code> and, in the <code>[OneStoreServices]</code> section,
              replace the <code>api_endpoint=</code> line with this one. It holds the key, shown only now.
            </Trans>
          </p>
          {address.kind === 'loading' ? (
            <p className="hint" role="status">
              <Trans>Finding the address a Kobo reaches this server by…</Trans>
            </p>
          ) : (
            <AddressNote address={address} onChoose={setChosen} onRetry={() => void addresses.refetch()} />
          )}
          <CopyField label={t`Line for Kobo eReader.conf`} value={line} multiline />
          {endpoint.placeholder && address.kind !== 'loading' && (
            <p className="warning-note">
              <Trans>
                No address a Kobo can reach this server at is known, so the line says <span className="mono">{hostPlaceholder}</span>:
                replace it with the server&apos;s name or address on your network before saving the file — or set{' '}
                <code>server.public_url</code> and add the Kobo again.
              </Trans>
            </p>
          )}
          <p className="hint">
            <Trans>
              Eject the Kobo and tap Sync. If Colophon runs on a port other than 80 or 443, or behind a proxy, set{' '}
              <code>server.public_url</code>.
            </Trans>
          </p>
          <button type="button" onClick={() => setNewKey(null)}>
            <Trans>Done</Trans>
          </button>
        </div>
      ) : (
        <form className="card stack key-form" onSubmit={submit} aria-label={t`Add a Kobo`}>
          <label>
            <Trans>Device name</Trans>
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder={EXAMPLE_DEVICE_NAME} />
          </label>
          <ErrorMessage error={create.error} />
          <button type="submit" className="primary" disabled={create.isPending}>
            <Trans>Add a Kobo</Trans>
          </button>
        </form>
      )}
      <ErrorMessage error={setup.error} />
      {setup.data.devices.length === 0 ? (
        <p className="empty">
          <Trans>No Kobo added yet — name one above to get the line its configuration needs.</Trans>
        </p>
      ) : (
        <ul className="row-list" aria-label={t`Kobo devices`}>
          {setup.data.devices.map((d) => (
            <KoboDeviceCard key={d.api_key_id} device={d} />
          ))}
        </ul>
      )}
    </section>
  );
}

function KoboDeviceCard({ device }: { device: KoboDevice }) {
  const { t } = useLingui();
  const { name: deviceName } = device;
  const lastSync = formatDate(device.last_sync_at);
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
        <strong>{deviceName}</strong>
        <span className="hint">{device.last_sync_at ? t`last synced ${lastSync}` : t`not synced yet`}</span>
      </div>
      {device.delivery_problem && <DeliveryProblem deviceName={deviceName} problem={device.delivery_problem} />}
      <fieldset className="choice-group">
        <legend>
          <Trans>What syncs to {deviceName}</Trans>
        </legend>
        <label className="choice">
          <input type="radio" checked={!only} onChange={() => setOnly(false)} name={`kobo-all-${device.api_key_id}`} />
          <span>
            <Trans>Every book I can see</Trans>
          </span>
        </label>
        <label className="choice">
          <input type="radio" checked={only} onChange={() => setOnly(true)} name={`kobo-all-${device.api_key_id}`} />
          <span>
            <Trans>Only what I choose</Trans>
          </span>
        </label>
        {only && (
          <div className="stack">
            <label className="choice">
              <input
                type="checkbox"
                checked={selection.want_to_read ?? false}
                onChange={(e) => setSelection((s) => ({ ...s, want_to_read: e.target.checked }))}
              />
              <span>
                <Trans>Want to read</Trans>
              </span>
            </label>
            {(collections.data?.data ?? []).map(({ id, name: collectionName }) => (
              <label key={id} className="choice">
                <input
                  type="checkbox"
                  checked={selection.collections?.includes(id) ?? false}
                  onChange={(e) => toggle('collections', id, e.target.checked)}
                />
                <span>
                  <Trans>Collection: {collectionName}</Trans>
                </span>
              </label>
            ))}
            {(readLists.data?.data ?? []).map(({ id, name: readListName }) => (
              <label key={id} className="choice">
                <input
                  type="checkbox"
                  checked={selection.read_lists?.includes(id) ?? false}
                  onChange={(e) => toggle('read_lists', id, e.target.checked)}
                />
                <span>
                  <Trans>Read list: {readListName}</Trans>
                </span>
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
          <span>
            <Trans>Comics in shades of grey (black-and-white screen)</Trans>
          </span>
        </label>
      </fieldset>
      <fieldset className="choice-group">
        <legend>
          <Trans>How books reach {deviceName}</Trans>
        </legend>
        <label className="choice">
          <input
            type="checkbox"
            checked={selection.kepub ?? true}
            onChange={(e) => setSelection((s) => ({ ...s, kepub: e.target.checked }))}
          />
          <span>
            <Trans>EPUBs as KEPUB (the Kobo&apos;s own format: faster pages, reading statistics, exact positions)</Trans>
          </span>
        </label>
        <label>
          <Trans>Screen size for comics and PDFs</Trans>
          <select
            value={screenValue(selection.screen)}
            onChange={(e) => {
              const value = e.target.value;
              const [width, height] = value.split('x').map(Number);
              setSelection((s) => ({ ...s, screen: value === ORIGINAL || !width || !height ? null : { width, height } }));
            }}
          >
            {SCREENS.map((screen) => (
              <option key={screen.name} value={`${screen.width}x${screen.height}`}>
                {`${screen.name} (${screen.width} × ${screen.height})`}
              </option>
            ))}
            {selection.screen && !SCREENS.some((p) => screenValue(p) === screenValue(selection.screen)) && (
              <option value={screenValue(selection.screen)}>
                {selection.screen.width} × {selection.screen.height}
              </option>
            )}
            <option value={ORIGINAL}>{t`Original size`}</option>
          </select>
        </label>
        <p className="hint">
          <Trans>Pages are fitted to the screen, never enlarged. A change sends the books it concerns again at the next sync.</Trans>
        </p>
      </fieldset>
      <ErrorMessage error={save.error} />
      <button type="button" className="small" disabled={save.isPending} onClick={() => save.mutate()}>
        {save.isSuccess ? (
          <Trans>
            Saved<span className="visually-hidden"> settings of {deviceName}</span>
          </Trans>
        ) : (
          <Trans>
            Save<span className="visually-hidden"> settings of {deviceName}</span>
          </Trans>
        )}
      </button>
    </li>
  );
}

/** The last download the server could not send as the device's settings ask (the server's own message below). */
function DeliveryProblem({ deviceName, problem }: { deviceName: string; problem: NonNullable<KoboDevice['delivery_problem']> }) {
  const { t } = useLingui();
  const { book_title: bookTitle } = problem;
  const when = formatWhen(problem.at);
  return (
    <div className="delivery-problem" role="note" aria-label={t`Last delivery problem on ${deviceName}`}>
      <p>
        <Trans>
          <strong>Last download not sent as asked:</strong> “{bookTitle}”, {when}.
        </Trans>
      </p>
      <p>{problem.message}</p>
    </div>
  );
}
