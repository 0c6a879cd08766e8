import { z } from 'zod';

export const DeviceView = z
  .object({
    id: z
      .string()
      .describe('The device as progress and statistics name it: `key:<api key id>`, `hdr:<X-Device-Id>` or `ua:<hash of the User-Agent>`.'),
    kind: z.string().describe("`api_key`, `header` (a reader app's own X-Device-Id) or `user_agent`."),
    name: z.string().describe('The name the user gave it, else the detected name.'),
    detected_name: z.string().describe("The API key's name, the X-Device-Id, or the User-Agent."),
    renamed: z.boolean().describe("true when `name` is the user's."),
    api_key: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .describe('The API key the device syncs with (revoke it to stop the device syncing); null for others.'),
    client_device_id: z
      .string()
      .nullable()
      .describe("The reader app's own device id as it sent it (KOReader's device_id, an OPDS Progression device id)."),
    client_name: z.string().nullable().describe("The reader app's device name as it sent it (KOReader's device name)."),
    user_agent: z.string().nullable().describe('User-Agent of its last sync.'),
    last_protocol: z
      .string()
      .nullable()
      .describe('Protocol of its last sync, as in the progress history (`colophon`, `koreader`, `komga`, `opds-pse`, `opds2`).'),
    first_seen_at: z.string(),
    last_sync_at: z.string().describe('When it last wrote a position.'),
  })
  .meta({ id: 'Device' });
export type DeviceView = z.infer<typeof DeviceView>;

export const DeviceParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    // A control character cannot be in an id the server gave out, and PostgreSQL refuses a NUL in text outright.
    .regex(/^\P{Cc}+$/u, 'must not contain control characters')
    .describe('A device id from GET /me/devices (URL-encoded).'),
});

export const DeviceRename = z
  .object({ name: z.string().trim().min(1).max(100).nullable().describe('The new name; null gives the device its detected name back.') })
  .meta({ id: 'DeviceRename' });
export type DeviceRename = z.infer<typeof DeviceRename>;
