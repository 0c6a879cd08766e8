import { z } from 'zod';
import { ErrorBody, notFound } from '../../http/errors.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf, type Caller } from '../../identity/index.js';
import type { CollectionsService, ReadListsService, WantToReadService } from '../../lists/index.js';
import type { ProgressService } from '../../reading/index.js';

const ALL = { page: 1, pageSize: 500, offset: 0 };

export interface ExportSources {
  progress: ProgressService;
  collections: CollectionsService;
  readLists: ReadListsService;
  wantToRead: WantToReadService;
  preferences: { list(caller: Caller): Promise<unknown[]> };
  /** A user as a caller with their own access rules (undefined: no such enabled account). */
  callerOf(userId: string): Promise<Caller | undefined>;
}

/** Every page of a paged service call (500 at a time). */
async function everything<T>(read: (page: typeof ALL) => Promise<{ total: number; data: T[] }>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const { total, data } = await read({ page, pageSize: 500, offset: (page - 1) * 500 });
    out.push(...data);
    if (data.length === 0 || out.length >= total) return out;
  }
}

/**
 * A person's own data as one JSON document (issue 52, Account → Export my data): their reading positions, each
 * book's history, their collections and read lists (each read list as CBL too), want-to-read and preferences. Made
 * through the same services as every answer, so it holds only what that person may see.
 */
async function exportOf(sources: ExportSources, caller: Caller) {
  const progress = await everything((p) => sources.progress.list(caller, p, false));
  const history = await Promise.all(
    progress.map(async (p) => ({
      book_id: p.book.id,
      events: await everything((page) => sources.progress.history(caller, p.book.id, page)),
    })),
  );
  const collections = (await everything((p) => sources.collections.list(caller, {}, p))).filter((c) => c.owner_user_id === caller.user.id);
  const readLists = (await everything((p) => sources.readLists.list(caller, {}, p))).filter((l) => !l.shared);
  return {
    format: 'colophon-user-export' as const,
    exported_at: new Date().toISOString(),
    user: { id: caller.user.id, username: caller.user.username, email: caller.user.email },
    progress,
    history,
    collections,
    read_lists: await Promise.all(readLists.map(async (l) => ({ ...l, cbl: (await sources.readLists.exportCbl(caller, l.id)).xml }))),
    want_to_read: await everything((p) => sources.wantToRead.list(caller, p)),
    preferences: await sources.preferences.list(caller),
  };
}

const UserExport = z
  .object({
    format: z.literal('colophon-user-export'),
    exported_at: z.string(),
    user: z.object({ id: z.string(), username: z.string(), email: z.string().nullable() }),
    progress: z.array(z.unknown()).describe('Every book with a reading position (ProgressWithBook).'),
    history: z.array(z.object({ book_id: z.string(), events: z.array(z.unknown()) })).describe("Each of those books' progress history."),
    collections: z.array(z.unknown()).describe('Their own collections.'),
    read_lists: z.array(z.unknown()).describe('Their own read lists, each with `cbl`: the list as a ComicRack reading list.'),
    want_to_read: z.array(z.unknown()),
    preferences: z.array(z.unknown()),
  })
  .meta({ id: 'UserExport' });

const attachment = (username: string) => `attachment; filename="colophon-${username.replace(/[^A-Za-z0-9._-]/g, '_')}.json"`;

export function registerExportRoutes(app: App, sources: ExportSources): void {
  app.route({
    method: 'GET',
    url: '/me/export',
    schema: {
      summary: 'Export my data',
      description:
        'Your reading positions and their history, your collections and read lists (as CBL too), want-to-read and preferences, as one JSON file. Only what you may see.',
      tags: ['users'],
      response: { 200: UserExport },
    },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      return reply.header('content-disposition', attachment(caller.user.username)).send(await exportOf(sources, caller));
    },
  });

  app.route({
    method: 'GET',
    url: '/users/:id/export',
    config: { permission: 'system-admin' },
    schema: {
      summary: "Export a user's data",
      description:
        'The same file as `/me/export`, for any enabled user: it holds what that user may see (their own access rules), never more.',
      tags: ['users'],
      params: IdParams,
      response: { 200: UserExport, 404: ErrorBody },
    },
    handler: async (req, reply) => {
      const caller = await sources.callerOf(req.params.id);
      if (!caller) throw notFound('User');
      return reply.header('content-disposition', attachment(caller.user.username)).send(await exportOf(sources, caller));
    },
  });
}
