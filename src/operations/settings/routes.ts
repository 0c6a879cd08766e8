import { z } from 'zod';
import { PaginationQuery, pageRequest, paginated, toPage } from '../../http/pagination.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import type { SettingsService } from './service.js';

const SettingView = z
  .object({
    key: z.string(),
    value: z.unknown(),
    default: z.unknown(),
    is_default: z.boolean(),
    description: z.string(),
    updated_at: z.string().nullable(),
    updated_by: z.string().nullable().describe('Id of the admin who last changed it.'),
  })
  .meta({ id: 'Setting' });

const SettingChange = z
  .object({
    id: z.string(),
    key: z.string(),
    old_value: z.unknown(),
    new_value: z.unknown().describe('Null when the setting was reset to its default.'),
    changed_by: z.object({ id: z.string(), username: z.string().nullable() }).nullable(),
    changed_at: z.string(),
  })
  .meta({ id: 'SettingChange' });

const KeyParams = z.object({ key: z.string().min(1).max(100) });
const ValueBody = z.object({ value: z.unknown() }).meta({ id: 'SettingValue' });
const BulkBody = z
  .object({
    settings: z
      .record(z.string(), z.unknown())
      .describe('Key → new value. All are validated first; then all are applied in one transaction.'),
  })
  .meta({ id: 'SettingsBulkUpdate' });

const KEYS_DOC =
  'Keys: `registration_enabled`, `email_verification_required`, `rate_limit_enabled`, `rate_limit_anonymous_rps`, `rate_limit_anonymous_burst`, `rate_limit_authenticated_rps`, `rate_limit_authenticated_burst`, `thumbnail_width`, `komga_api_enabled`, `komga_api_prefix`, `new_users_see_all_libraries`, `password_sign_in_disabled`, `task_retention_days`. Defaults come from the configuration file. Unknown keys answer 404.';

export function registerSettingsRoutes(app: App, settings: SettingsService): void {
  const admin = { permission: 'system-admin' };

  app.route({
    method: 'GET',
    url: '/admin/settings',
    config: admin,
    schema: { summary: 'List admin settings', description: KEYS_DOC, tags: ['settings'], response: { 200: z.array(SettingView) } },
    handler: () => settings.list(),
  });

  app.route({
    method: 'POST',
    url: '/admin/settings/bulk',
    config: admin,
    schema: {
      summary: 'Bulk update settings (all or nothing)',
      tags: ['settings'],
      body: BulkBody,
      response: { 200: z.array(SettingView) },
    },
    handler: (req) => settings.setMany(req.body.settings, callerOf(req).user.id),
  });

  app.route({
    method: 'GET',
    url: '/admin/settings/:key',
    config: admin,
    schema: { summary: 'One setting', description: KEYS_DOC, tags: ['settings'], params: KeyParams, response: { 200: SettingView } },
    handler: (req) => settings.describe(req.params.key),
  });

  app.route({
    method: 'PUT',
    url: '/admin/settings/:key',
    config: admin,
    schema: {
      summary: 'Update a setting',
      description: 'Takes effect at once on this instance and within 5 seconds on others.',
      tags: ['settings'],
      params: KeyParams,
      body: ValueBody,
      response: { 200: SettingView },
    },
    handler: (req) => settings.set(req.params.key, req.body.value, callerOf(req).user.id),
  });

  app.route({
    method: 'POST',
    url: '/admin/settings/:key/reset',
    config: admin,
    schema: { summary: 'Reset a setting to its default', tags: ['settings'], params: KeyParams, response: { 200: SettingView } },
    handler: (req) => settings.reset(req.params.key, callerOf(req).user.id),
  });

  app.route({
    method: 'GET',
    url: '/admin/settings/:key/history',
    config: admin,
    schema: {
      summary: 'Change history of a setting (newest first)',
      tags: ['settings'],
      params: KeyParams,
      querystring: PaginationQuery,
      response: { 200: paginated(SettingChange) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { items, total } = await settings.history(req.params.key, page);
      return toPage(req.url, page, total, items);
    },
  });
}
