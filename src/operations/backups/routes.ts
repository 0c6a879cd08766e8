import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import type { App } from '../../http/types.js';
import { TaskView, taskView } from '../tasks/schemas.js';
import type { ScheduledBackups } from './scheduled.js';

const Backup = z
  .object({
    name: z.string(),
    size: z.number().int(),
    created_at: z.string(),
    summary: z
      .object({
        engine: z.string(),
        schema_version: z.string().nullable(),
        tables: z.number().int(),
        rows: z.number().int(),
        files: z.number().int(),
        users: z.number().int(),
      })
      .nullable()
      .describe("From the file's manifest; null when it has none that can be read."),
  })
  .meta({ id: 'Backup' });

const NameParams = z.object({ name: z.string().min(1).max(300) });
const tags = ['backups'];

/** Administration → Backups (system-admin). */
export function registerBackupRoutes(app: App, backups: ScheduledBackups): void {
  const config = { permission: 'system-admin' };
  app.route({
    method: 'GET',
    url: '/admin/backups',
    config,
    schema: {
      summary: 'List the backups in the backups folder',
      description:
        'Newest first, with the summary each file’s manifest gives. `last_failure`: the last scheduled or requested backup that failed, in words (also in `/health`), until one succeeds.',
      tags,
      response: {
        200: z.object({
          folder: z.string(),
          data: z.array(Backup),
          last_failure: z.object({ at: z.string(), message: z.string() }).nullable(),
        }),
      },
    },
    handler: async () => ({ folder: backups.folder(), data: await backups.list(), last_failure: backups.lastFailure }),
  });

  app.route({
    method: 'POST',
    url: '/admin/backups',
    config,
    schema: {
      summary: 'Back up now',
      description:
        'Queues a `backup` task (202; while one is queued or running, that one), followed on `/tasks/stream`. The file is written under a temporary name, read back whole, then renamed: a failed backup leaves no file.',
      tags,
      response: { 202: TaskView },
    },
    handler: async (_req, reply) => reply.code(202).send(taskView(await backups.request('now'))),
  });

  app.route({
    method: 'GET',
    url: '/admin/backups/:name',
    config,
    schema: {
      summary: 'Download a backup',
      description: 'The `.tar.gz` itself. It holds every account, key hash and reading position: keep it as safe as the server.',
      tags,
      params: NameParams,
      response: { 200: z.unknown(), 404: ErrorBody },
    },
    handler: async (req, reply) => {
      const file = await backups.file(req.params.name);
      const { size } = await stat(file);
      return reply
        .type('application/gzip')
        .header('content-length', size)
        .header('content-disposition', `attachment; filename="${req.params.name}"`)
        .send(createReadStream(file));
    },
  });

  app.route({
    method: 'DELETE',
    url: '/admin/backups/:name',
    config,
    schema: { summary: 'Delete a backup', tags, params: NameParams, response: { 204: z.null(), 404: ErrorBody } },
    handler: async (req, reply) => {
      await backups.remove(req.params.name);
      return reply.code(204).send(null);
    },
  });
}
