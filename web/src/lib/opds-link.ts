import { msg } from '@lingui/core/macro';

/**
 * What the API key's QR code carries for phone reading apps: the OPDS 1.2 catalog URL with the key as HTTP
 * Basic credentials (user `api`, password the key), which OPDS apps (Panels, Chunky, KOReader, Moon+) take
 * from a single scanned URL. The separate fields are shown too for apps that ask for them one by one.
 */
export interface OpdsAccess {
  catalogUrl: string;
  username: string;
  password: string;
  /** The catalog URL with the credentials in it, for the QR code. */
  qrText: string;
}

/** `path` under the server's base URL, which may have a path of its own (a `server.public_url` behind a proxy). */
function under(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}

/** `base`: the address other devices reach the server by (see server-address.ts). */
export function opdsAccess(base: string, key: string): OpdsAccess {
  const catalog = under(base, '/opds/v1.2/catalog');
  const withCredentials = new URL(catalog);
  withCredentials.username = 'api';
  withCredentials.password = key;
  return { catalogUrl: catalog.toString(), username: 'api', password: key, qrText: withCredentials.toString() };
}

/**
 * The expiry choices when creating a key, as an ISO timestamp from `now` (null: never expires). `label` is a message
 * descriptor: shown with `i18n._(label)` (or `_` from `useLingui`), in the active language.
 */
export const EXPIRY_CHOICES = [
  { id: '30d', label: msg`30 days`, days: 30 },
  { id: '90d', label: msg`90 days`, days: 90 },
  { id: '1y', label: msg`1 year`, days: 365 },
  { id: 'never', label: msg({ message: 'Never', context: 'API key expiry' }), days: null },
] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number]['id'];

export function expiryFor(choice: ExpiryChoice, now: Date = new Date()): string | null {
  const days = EXPIRY_CHOICES.find((c) => c.id === choice)?.days ?? null;
  if (days === null) return null;
  return new Date(now.getTime() + days * 86_400_000).toISOString();
}

/**
 * The URL to paste into KOReader's "Custom sync server" (Progress sync): the server's kosync path (the setup
 * status's `koreader_sync_path`, the `koreader.prefix` setting) with the API key as its last segment, so KOReader's
 * own login fields are not needed.
 */
export function koreaderSyncUrl(base: string, syncPath: string, key: string): string {
  const prefix = syncPath.replace(/^\/+|\/+$/g, '');
  return under(base, `${prefix ? `/${prefix}` : ''}/${encodeURIComponent(key)}`).toString();
}
