import { z } from 'zod';
import { publicBaseUrl } from '../../http/public-url.js';
import type { App } from '../../http/types.js';

export const KoreaderSetup = z
  .object({
    enabled: z.boolean().describe('Whether the KOReader sync server runs (`koreader.enabled`).'),
    server_url: z
      .string()
      .nullable()
      .describe('The sync server URL without a key (type the API key as the user name in KOReader); null when off.'),
    sync_url_template: z
      .string()
      .nullable()
      .describe(
        'The URL to paste into KOReader\'s "Custom sync server", with `{api_key}` to replace by an API key holding progress-read and progress-write; null when off.',
      ),
  })
  .meta({ id: 'KoreaderSetup' });
export type KoreaderSetup = z.infer<typeof KoreaderSetup>;

/**
 * What a user needs to set KOReader up (the web app shows it, with a QR code of the URL): the server's public
 * base URL (`server.public_url`, else the request's scheme and host) and `koreader.prefix`.
 */
export function registerKosyncSetupRoute(app: App, options: { enabled: boolean; prefix: string; publicUrl: string | undefined }): void {
  app.route({
    method: 'GET',
    url: '/me/koreader',
    config: { permission: 'progress-read' },
    schema: {
      summary: 'KOReader progress sync setup',
      description: 'The sync server URL to paste into KOReader (Tools → Progress sync → Custom sync server). See docs/koreader.md.',
      tags: ['progress'],
      response: { 200: KoreaderSetup },
    },
    handler: (req): KoreaderSetup => {
      if (!options.enabled) return { enabled: false, server_url: null, sync_url_template: null };
      const server = `${publicBaseUrl(req, options.publicUrl)}${options.prefix}`;
      return { enabled: true, server_url: server, sync_url_template: `${server}/{api_key}` };
    },
  });
}
