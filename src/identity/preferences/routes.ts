import { z } from 'zod';
import type { App } from '../../http/types.js';
import { callerOf } from '../auth/hooks.js';
import { PREFERENCES } from './registry.js';
import type { PreferencesService } from './service.js';

const PreferenceView = z
  .object({
    key: z.string(),
    value: z.unknown(),
    default: z.unknown(),
    is_default: z.boolean(),
    description: z.string(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'Preference' });
const KeyParams = z.object({ key: z.string().min(1).max(100) });
const KEYS_DOC = `Keys: ${Object.keys(PREFERENCES)
  .map((k) => `\`${k}\``)
  .join(', ')}. Unknown keys answer 400.`;

export function registerPreferenceRoutes(app: App, preferences: PreferencesService): void {
  app.route({
    method: 'GET',
    url: '/user/preferences',
    schema: {
      summary: "List all of the caller's preferences (with defaults)",
      description: KEYS_DOC,
      tags: ['preferences'],
      response: { 200: z.array(PreferenceView) },
    },
    handler: (req) => preferences.list(callerOf(req)),
  });

  app.route({
    method: 'PUT',
    url: '/user/preferences/:key',
    schema: {
      summary: 'Set a preference',
      description: KEYS_DOC,
      tags: ['preferences'],
      params: KeyParams,
      body: z.object({ value: z.unknown() }),
      response: { 200: PreferenceView },
    },
    handler: (req) => preferences.set(callerOf(req), req.params.key, req.body.value),
  });

  app.route({
    method: 'DELETE',
    url: '/user/preferences/:key',
    schema: { summary: 'Reset a preference to its default', tags: ['preferences'], params: KeyParams, response: { 200: PreferenceView } },
    handler: (req) => preferences.reset(callerOf(req), req.params.key),
  });
}
