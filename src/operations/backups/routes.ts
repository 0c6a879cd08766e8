import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, badRequest, ErrorBody } from '../../http/errors.js';
import type { App } from '../../http/types.js';
import { TaskView, taskView } from '../tasks/schemas.js';
import { BackupFileError } from './archive.js';
import type { ScheduledBackups } from './scheduled.js';
import { RestoreRefused } from './service.js';

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

const Restored = z
  .object({
    restored: z.object({ created_at: z.string(), engine: z.string(), tables: z.number().int(), rows: z.number().int() }),
    libraries: z
      .array(z.object({ id: z.string(), name: z.string(), path: z.string(), present: z.boolean() }))
      .describe('Each library of the backup and whether its folder is here: a missing one is pointed at its new place before a scan.'),
  })
  .meta({ id: 'SetupRestoreResult' });

/** Up to 64 GiB: a household's backup is a few hundred MB; the limit only stops a runaway upload. */
const RESTORE_MAX_BYTES = 64 * 1024 ** 3;

/** The uploaded backup, written to a temporary file as it arrives (never held in memory). */
async function uploadedBackup(req: FastifyRequest, dir: string): Promise<string | null> {
  const file = path.join(dir, 'upload.tar.gz');
  let found = false;
  for await (const part of req.parts({ limits: { fileSize: RESTORE_MAX_BYTES, files: 1 } })) {
    if (part.type !== 'file') continue;
    if (part.fieldname !== 'file' || found) {
      part.file.resume();
      continue;
    }
    await pipeline(part.file, createWriteStream(file));
    if (part.file.truncated) throw new AppError(413, 'PayloadTooLarge', 'The backup is larger than the server takes in one upload');
    found = true;
  }
  return found ? file : null;
}

/** `POST /setup/restore`: the first-run screen's "Restore from a backup", only while no account exists. */
export function registerSetupRestoreRoute(app: App, backups: ScheduledBackups): void {
  app.route({
    method: 'POST',
    url: '/setup/restore',
    config: { public: true },
    schema: {
      summary: 'Restore a backup instead of setting up',
      description:
        'Only while setup is needed (no account yet; 409 afterwards). Either multipart/form-data with the backup in the field `file`, or JSON `{name}` naming a file of the backups folder. The whole file is checked first: a damaged or foreign one is refused with the reason (422) and nothing changes. Afterwards the restored accounts sign in; each library says whether its folder is here (a missing one is reported, never emptied: point it at its new folder under Administration → Libraries before scanning).',
      tags: ['setup'],
      security: [],
      body: z.object({ name: z.string().min(1).max(300) }).optional(),
      response: { 200: Restored, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody, 413: ErrorBody, 422: ErrorBody },
    },
    // The multipart form is read by the handler; JSON names a file of the folder.
    validatorCompiler: ({ httpPart }) => (httpPart === 'body' ? (data: unknown) => ({ value: data }) : () => true),
    handler: async (req) => {
      const work = await mkdtemp(path.join(os.tmpdir(), 'colophon-setup-restore-'));
      try {
        let file: string | null;
        if (req.isMultipart()) file = await uploadedBackup(req, work);
        else {
          const name = (req.body as { name?: unknown } | undefined)?.name;
          if (typeof name !== 'string')
            throw badRequest(
              'Send the backup as multipart/form-data in the field "file", or JSON {"name"} of a file in the backups folder',
            );
          file = await backups.file(name);
        }
        if (!file) throw badRequest('Send the backup as multipart/form-data in the field "file"');
        try {
          return await backups.restoreAtSetup(file);
        } catch (err) {
          if (err instanceof BackupFileError) throw new AppError(422, 'UnprocessableEntity', `The backup file is refused: ${err.message}`);
          if (err instanceof RestoreRefused) throw new AppError(409, 'Conflict', err.message);
          throw err;
        }
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  });
}
