import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { DeviceParams, DeviceRename, DeviceView } from './schemas.js';
import type { DevicesService } from './service.js';

const tags = ['progress'];

export function registerDeviceRoutes(app: App, devices: DevicesService): void {
  app.route({
    method: 'GET',
    url: '/me/devices',
    config: { permission: 'progress-read' },
    schema: {
      summary: "The caller's devices",
      description:
        'Every device that wrote a reading position (web app, reader apps, KOReader, Komga clients, OPDS readers), identified by its API key, ' +
        'else its X-Device-Id, else its User-Agent; with the identity the app sent (KOReader device_id and name), its User-Agent, and its last sync. ' +
        'Most recently synced first.',
      tags,
      querystring: PaginationQuery,
      response: { 200: paginated(DeviceView) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await devices.list(callerOf(req), page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'PATCH',
    url: '/me/devices/:id',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Rename a device',
      description:
        'The name shows in this list and in the reading statistics; `null` gives back the detected name. 404 for a device the caller does not have.',
      tags,
      params: DeviceParams,
      body: DeviceRename,
      response: { 200: DeviceView, 400: ErrorBody, 404: ErrorBody },
    },
    handler: (req) => devices.rename(callerOf(req), req.params.id, req.body as DeviceRename),
  });

  app.route({
    method: 'DELETE',
    url: '/me/devices/:id',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Remove a device',
      description:
        'Forgets the device: it leaves this list and the per-device statistics (its reading time stays in the totals) and its positions stay in the ' +
        'history. A device that syncs again comes back; to stop an API-key device from syncing, revoke its key (DELETE /api-keys/{id}).',
      tags,
      params: DeviceParams,
      response: { 204: z.null(), 404: ErrorBody },
    },
    handler: async (req, reply) => {
      await devices.remove(callerOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  });
}
