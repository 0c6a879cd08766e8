import type { components } from '../api/client';

type ServerAddresses = components['schemas']['ServerAddresses'];

/**
 * The address the API key's QR codes and copy fields give another device (a phone, an e-reader), from
 * `GET /api/v1/me/server-addresses`, and what to say beside them. The browser's own origin is the wrong answer when
 * the administrator opened Colophon on the server itself (`http://127.0.0.1:8080`): no phone reaches that.
 *
 * - `public`: `server.public_url` is set, and is the address;
 * - `reachable`: the address this browser used names the server on a network (it is the browser's origin);
 * - `lan`: that address is loopback; `choices` are the server's LAN addresses, `base` the one chosen (the first
 *   unless another was picked);
 * - `loopback-only`: loopback, and no LAN address was found;
 * - `failed`: the addresses could not be loaded: the browser's origin, said to be a guess;
 * - `loading`: not known yet.
 */
export type ShareableAddress =
  | { kind: 'loading' }
  | { kind: 'public' | 'reachable'; base: string }
  | { kind: 'lan'; base: string; loopbackUrl: string; choices: string[] }
  | { kind: 'loopback-only'; base: string; loopbackUrl: string }
  | { kind: 'failed'; base: string };

export function shareableAddress(
  addresses: ServerAddresses | undefined,
  failed: boolean,
  browserOrigin: string,
  chosen: string | null,
): ShareableAddress {
  if (!addresses) return failed ? { kind: 'failed', base: browserOrigin } : { kind: 'loading' };
  if (addresses.public_url_set) return { kind: 'public', base: addresses.base_url };
  if (!addresses.loopback) return { kind: 'reachable', base: addresses.base_url };
  const choices = addresses.lan_urls;
  const first = choices[0];
  if (first === undefined) return { kind: 'loopback-only', base: addresses.base_url, loopbackUrl: addresses.base_url };
  const base = chosen !== null && choices.includes(chosen) ? chosen : first;
  return { kind: 'lan', base, loopbackUrl: addresses.base_url, choices };
}
