import os from 'node:os';
import { z } from 'zod';
import { publicBaseUrl } from '../../http/public-url.js';
import type { App } from '../../http/types.js';

export const ServerAddresses = z
  .object({
    base_url: z
      .string()
      .describe('The address to give other devices: `server.public_url` when set, else the scheme and host this request used.'),
    public_url_set: z.boolean().describe('Whether `server.public_url` is configured (then `base_url` is it).'),
    loopback: z
      .boolean()
      .describe(
        'True when `base_url` names this machine only (localhost, 127.0.0.1, ::1): a phone or e-reader cannot reach it; offer `lan_urls` instead.',
      ),
    lan_urls: z
      .array(z.string())
      .describe(
        "The server's addresses on its local networks (IPv4, the port this request came in on), for devices on the same network; empty when the server listens on a loopback address only (`server.host` 127.0.0.1), which no other device reaches.",
      ),
  })
  .meta({ id: 'ServerAddresses' });
export type ServerAddresses = z.infer<typeof ServerAddresses>;

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

/** The host part of a base URL, without port or brackets' meaning changed. */
function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return '';
  }
}

/**
 * Where other devices reach this server, for the addresses and QR codes the web app shows (API keys, KOReader,
 * OPDS): an administrator who opened Colophon on the server itself sees `http://127.0.0.1:8080`, which no phone
 * can reach, so the non-loopback addresses are offered beside it.
 */
export function registerServerAddressesRoute(app: App, options: { publicUrl: string | undefined }): void {
  app.route({
    method: 'GET',
    url: '/me/server-addresses',
    schema: {
      summary: 'Addresses other devices reach this server by',
      description:
        'For setting up reader apps: `base_url` (`server.public_url`, else this request’s origin), whether it is a loopback address, and the server’s LAN addresses.',
      tags: ['auth'],
      response: { 200: ServerAddresses },
    },
    handler: (req): ServerAddresses => {
      const baseUrl = publicBaseUrl(req, options.publicUrl);
      const port = req.socket.localPort;
      // A server bound to loopback (`server.host: 127.0.0.1`) is reached by nothing else, whatever the interfaces.
      const bound = req.server.server.address();
      const boundToLoopback = typeof bound === 'object' && bound !== null && LOOPBACK_HOST.test(bound.address);
      const lanUrls = (boundToLoopback ? [] : Object.values(os.networkInterfaces()))
        .flatMap((addresses) => addresses ?? [])
        .filter((a) => a.family === 'IPv4' && !a.internal)
        .map((a) => `${req.protocol}://${a.address}${port ? `:${port}` : ''}`);
      return {
        base_url: baseUrl,
        public_url_set: options.publicUrl !== undefined,
        loopback: LOOPBACK_HOST.test(hostOf(baseUrl)),
        lan_urls: [...new Set(lanUrls)],
      };
    },
  });
}
