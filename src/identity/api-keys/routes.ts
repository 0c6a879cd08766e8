import { z } from 'zod';
import { PaginationQuery, pageRequest, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../auth/hooks.js';
import { PERMISSIONS, PermissionList, PRESET_NAMES, PRESETS } from '../access/permissions.js';
import type { ApiKeysService } from './service.js';

const ApiKeyView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key_prefix: z.string().describe('The 8-character lookup prefix (without the fixed `colophon_` segment), kept in plaintext.'),
    permissions: z.array(z.enum(PERMISSIONS)).describe("Requested permissions; effective = these ∩ the owner's current permissions."),
    expires_at: z.string().nullable(),
    created_at: z.string(),
    last_used_at: z.string().nullable().describe('Updated at most once a minute.'),
  })
  .meta({ id: 'ApiKey' });

const CreatedApiKey = ApiKeyView.extend({
  key: z.string().describe('The full key `colophon_<prefix>_<secret>`. Shown only in this response.'),
}).meta({ id: 'CreatedApiKey' });

const FutureTimestamp = z.iso
  .datetime({ offset: true })
  .refine((v) => Date.parse(v) > Date.now(), 'must be in the future')
  .nullable();

const ApiKeyCreate = z
  .object({
    name: z.string().trim().min(1).max(100).describe('A descriptive name; name it after the device for per-device statistics.'),
    permissions: PermissionList.optional().describe("Omitted: all of the creator's effective permissions."),
    preset: z
      .enum(PRESET_NAMES as [keyof typeof PRESETS, ...Array<keyof typeof PRESETS>])
      .optional()
      .describe('Used when `permissions` is omitted.'),
    expires_at: FutureTimestamp.optional().describe('Null or omitted: no expiry.'),
  })
  .meta({ id: 'ApiKeyCreate' });

const ApiKeyUpdate = ApiKeyCreate.partial().meta({ id: 'ApiKeyUpdate' });

const Presets = z
  .array(
    z.object({
      name: z.enum(PRESET_NAMES as [keyof typeof PRESETS, ...Array<keyof typeof PRESETS>]),
      permissions: z.array(z.enum(PERMISSIONS)),
    }),
  )
  .meta({ id: 'ApiKeyPresets' });

export function registerApiKeyRoutes(app: App, keys: ApiKeysService): void {
  app.route({
    method: 'GET',
    url: '/api-keys',
    config: { permission: 'api-keys-read' },
    schema: {
      summary: "List the caller's keys (metadata only, no secret)",
      tags: ['api-keys'],
      querystring: PaginationQuery,
      response: { 200: paginated(ApiKeyView) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { items, total } = await keys.list(callerOf(req), page);
      return toPage(req.url, page, total, items);
    },
  });

  app.route({
    method: 'GET',
    url: '/api-keys/presets',
    config: { permission: 'api-keys-read' },
    schema: { summary: 'Permission presets for keys', tags: ['api-keys'], response: { 200: Presets } },
    handler: () => PRESET_NAMES.map((name) => ({ name, permissions: [...PRESETS[name]] })),
  });

  app.route({
    method: 'POST',
    url: '/api-keys',
    config: { permission: 'api-keys-write' },
    schema: {
      summary: 'Create an API key',
      description: 'A key cannot carry a permission its creator lacks (403).',
      tags: ['api-keys'],
      body: ApiKeyCreate,
      response: { 201: CreatedApiKey },
    },
    handler: async (req, reply) => reply.code(201).send(await keys.create(callerOf(req), req.body)),
  });

  app.route({
    method: 'GET',
    url: '/api-keys/:id',
    config: { permission: 'api-keys-read' },
    schema: { summary: 'API key details', tags: ['api-keys'], params: IdParams, response: { 200: ApiKeyView } },
    handler: (req) => keys.get(callerOf(req), req.params.id),
  });

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/api-keys/:id',
      config: { permission: 'api-keys-write' },
      schema: {
        summary: method === 'PUT' ? 'Update an API key' : 'Update an API key (partial, same body as PUT)',
        tags: ['api-keys'],
        params: IdParams,
        body: ApiKeyUpdate,
        response: { 200: ApiKeyView },
      },
      handler: (req) => keys.update(callerOf(req), req.params.id, req.body),
    });
  }

  app.route({
    method: 'DELETE',
    url: '/api-keys/:id',
    config: { permission: 'api-keys-delete' },
    schema: { summary: 'Revoke an API key (invalid immediately)', tags: ['api-keys'], params: IdParams },
    handler: async (req, reply) => {
      await keys.revoke(callerOf(req), req.params.id);
      return reply.code(204).send();
    },
  });
}
