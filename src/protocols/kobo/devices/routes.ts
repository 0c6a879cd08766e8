import { z } from 'zod';
import { ErrorBody } from '../../../http/errors.js';
import { Uuid } from '../../../http/params.js';
import { publicBaseUrl } from '../../../http/public-url.js';
import type { App } from '../../../http/types.js';
import { callerOf } from '../../../identity/index.js';
import type { KoboService } from './service.js';

const tags = ['progress'];

const Selection = z
  .object({
    collections: z.array(Uuid).max(500).optional().describe('Collections whose series sync (with the other choices: any of them).'),
    read_lists: z.array(Uuid).max(500).optional().describe('Read lists whose books sync.'),
    want_to_read: z.boolean().optional().describe("The series on the user's want-to-read list sync."),
    greyscale: z.boolean().optional().describe('Comics and PDFs are delivered in shades of grey (black-and-white e-ink).'),
    kepub: z
      .boolean()
      .optional()
      .describe(
        "EPUBs are delivered as KEPUB, the Kobo's own EPUB (sentences in Kobo spans: the device's own renderer, exact positions). Default true.",
      ),
    screen: z
      .object({
        width: z.number().int().min(200).max(4000).describe('Pixels.'),
        height: z.number().int().min(200).max(4000).describe('Pixels.'),
      })
      .nullable()
      .optional()
      .describe(
        "The device's screen in portrait: comic and PDF pages are fitted inside it, never enlarged. Null: the pages' own size. Default 1264 × 1680 (a Kobo Libra).",
      ),
  })
  .meta({ id: 'KoboSelection' });

const KoboDevice = z
  .object({
    api_key_id: z.string(),
    name: z.string(),
    key_prefix: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    last_sync_at: z.string().nullable(),
    kobo_device_id: z.string().nullable(),
    selection: Selection.describe('What syncs: nothing chosen means every book the user sees.'),
    delivery_problem: z
      .object({
        book_id: z.string(),
        book_title: z.string(),
        message: z.string().describe('What happened, in words (a KEPUB conversion that failed and sent the plain EPUB).'),
        at: z.string(),
      })
      .nullable()
      .describe(
        'The last download that could not be given as asked; null when none, once one succeeds again, or when its book is no longer visible.',
      ),
  })
  .meta({ id: 'KoboDevice' });

const KoboSetup = z
  .object({
    enabled: z.boolean(),
    api_endpoint_template: z
      .string()
      .nullable()
      .describe(
        'The line for `[OneStoreServices]` in `.kobo/Kobo/Kobo eReader.conf`, with `{api_key}` to replace by a key holding kobo-sync; null when off.',
      ),
    devices: z.array(KoboDevice),
  })
  .meta({ id: 'KoboSetup' });

/** The account page's Kobo card: the line to paste on the device, and each device's choice of what syncs. */
export function registerKoboRoutes(app: App, kobo: KoboService, options: { enabled: boolean; publicUrl: string | undefined }): void {
  app.route({
    method: 'GET',
    url: '/me/kobo',
    config: { permission: 'kobo-sync' },
    schema: {
      summary: 'Kobo sync setup and devices',
      description:
        "The caller's API keys holding kobo-sync, each a Kobo device, and the line to paste into the device's configuration. See docs/kobo.md.",
      tags,
      response: { 200: KoboSetup },
    },
    handler: async (req) => ({
      enabled: options.enabled,
      api_endpoint_template: options.enabled ? `api_endpoint=${publicBaseUrl(req, options.publicUrl)}/kobo/{api_key}` : null,
      devices: await kobo.devices(callerOf(req)),
    }),
  });

  app.route({
    method: 'PUT',
    url: '/me/kobo/:api_key_id',
    config: { permission: 'kobo-sync' },
    schema: {
      summary: 'Choose what a Kobo device syncs, and how',
      description:
        'Replaces the choice; the next sync adds and removes books on the device to match. A change of how books are delivered ' +
        '(KEPUB, screen size, greyscale) sends the books it concerns again at the next sync. 404 for a key that is not the caller’s Kobo key.',
      tags,
      params: z.object({ api_key_id: Uuid }),
      body: Selection,
      response: { 200: KoboDevice, 400: ErrorBody, 404: ErrorBody },
    },
    handler: (req) => kobo.setSelection(callerOf(req), req.params.api_key_id, req.body),
  });
}
