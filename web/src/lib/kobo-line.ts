import type { ShareableAddress } from './server-address';

/*
 * The `api_endpoint=` line a Kobo is given (Account → Kobo e-readers), at the address the API-key panel chooses too
 * (server-address.ts): never a loopback address, which no Kobo reaches.
 */

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** What stands for the server's host in the line when no address a Kobo could use is known. */
export const KOBO_HOST_PLACEHOLDER = 'your-server';

/**
 * The endpoint template with the address a Kobo reaches the server by in place of the one the server built it from
 * (`base_url`: the address this browser used, useless to a Kobo when it is loopback). Never loopback: with no other
 * address known, the host is `your-server`, to be replaced (`placeholder` says so).
 */
export function koboTemplateFor(
  template: string,
  baseUrl: string | undefined,
  address: ShareableAddress,
): { template: string; placeholder: boolean } {
  const prefix = /^api_endpoint=/.exec(template)?.[0] ?? '';
  let rest = template.slice(prefix.length);
  if (address.kind === 'lan' && baseUrl) {
    const from = baseUrl.replace(/\/+$/, '');
    // Another form than expected: only the scheme, host and port are changed.
    rest = rest.startsWith(from)
      ? `${address.base.replace(/\/+$/, '')}${rest.slice(from.length)}`
      : rest.replace(/^https?:\/\/[^/]+/, new URL(address.base).origin);
  }
  const origin = /^https?:\/\/[^/]+/.exec(rest)?.[0];
  if (!origin) return { template: `${prefix}${rest}`, placeholder: false };
  const url = new URL(origin);
  if (!LOOPBACK_HOST.test(url.hostname)) return { template: `${prefix}${rest}`, placeholder: false };
  url.hostname = KOBO_HOST_PLACEHOLDER;
  return { template: `${prefix}${url.origin}${rest.slice(origin.length)}`, placeholder: true };
}
