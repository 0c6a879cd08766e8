import { z } from 'zod';
import type { App } from '../../http/types.js';
import type { FilesystemService } from './service.js';

const Entry = z
  .object({ name: z.string(), path: z.string(), is_directory: z.boolean(), size: z.number().nullable(), modified: z.string().nullable() })
  .meta({ id: 'DirectoryEntry' });
const Listing = z
  .object({
    path: z.string().describe('The normalised absolute path listed.'),
    parent: z.string().nullable().describe('Null at the root.'),
    entries: z.array(Entry).describe('Directories first, then files, each by name.'),
    truncated: z.boolean().describe('True when the folder has more than 5000 entries and only the first are listed.'),
  })
  .meta({ id: 'DirectoryListing' });

const BrowseQuery = z.object({
  path: z
    .string()
    .max(4096)
    .optional()
    .describe('Absolute path; defaults to the filesystem root (the first of `libraries.allowed_roots` when set).'),
  show_hidden: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Include entries whose name starts with a dot.'),
});

export function registerFilesystemRoutes(app: App, fs: FilesystemService): void {
  app.route({
    method: 'GET',
    url: '/filesystem/browse',
    config: { permission: 'system-admin' },
    schema: {
      summary: 'Browse server directories (admin)',
      description:
        'Relative paths → 400, missing → 404, unreadable → 403. `..` segments are normalised away before anything is read. With `libraries.allowed_roots` set, only those folders and what lies below them can be browsed (403 elsewhere; the default path is the first root, and `parent` is null at a root).',
      tags: ['filesystem'],
      querystring: BrowseQuery,
      response: { 200: Listing },
    },
    handler: (req) => fs.browse(req.query.path, req.query.show_hidden),
  });

  app.route({
    method: 'GET',
    url: '/filesystem/drives',
    config: { permission: 'system-admin' },
    schema: {
      summary: 'Where browsing can start: the allowed library roots when configured, else the drives (Windows) or `/`',
      tags: ['filesystem'],
      response: { 200: z.array(z.object({ name: z.string(), path: z.string() })) },
    },
    handler: () => fs.drives(),
  });
}
