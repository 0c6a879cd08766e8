import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf, inScope, scopeFor } from '../../identity/index.js';
import type { LibraryService } from '../service.js';
import type { WatchService } from './service.js';

const tags = ['libraries'];

export const WatchStatus = z
  .object({
    library_id: z.uuid(),
    state: z
      .enum(['watching', 'polling', 'paused', 'off', 'elsewhere', 'failed', 'stopped'])
      .describe(
        '`watching`: file-system events; `polling`: the folder walked every `watch_poll_seconds`; `paused`: the folder is missing (an unmounted drive), its books are kept; `off`: `scanning_config.watch` is false; `elsewhere`: another instance of the server watches it; `failed`: watching stopped with an error (tried again); `stopped`: watching is turned off for the server (`scanner.watch`) or not started yet.',
      ),
    reason: z.string().nullable().describe('Why, in a sentence (paused, failed, elsewhere).'),
    since: z.string().nullable(),
    pending_folders: z.array(z.string()).describe('Changed folders waiting for the quiet period (relative to the library folder).'),
    being_written: z.array(z.string()).describe('Files whose size or time was still changing at the last look.'),
  })
  .meta({ id: 'LibraryWatchStatus' });

type WatchStatusView = z.infer<typeof WatchStatus>;

const stopped = (libraryId: string): WatchStatusView => ({
  library_id: libraryId,
  state: 'stopped',
  reason: null,
  since: null,
  pending_folders: [],
  being_written: [],
});

/** Watching state of libraries, for Administration (those who manage libraries). */
export function registerWatchRoutes(app: App, deps: { watching: WatchService; libraries: LibraryService }): void {
  app.route({
    method: 'GET',
    url: '/libraries/watching',
    config: { permission: 'libraries-write' },
    schema: {
      summary: "Libraries' folder watching",
      description: 'The watching state of every library the caller sees, in this instance.',
      tags,
      response: { 200: z.object({ data: z.array(WatchStatus) }) },
    },
    handler: async (req) => {
      const scope = scopeFor(callerOf(req));
      const { data } = await deps.libraries.listFor(callerOf(req), 0, 10_000);
      return { data: data.filter((l) => inScope(scope, l.id)).map((l) => deps.watching.get(l.id) ?? stopped(l.id)) };
    },
  });

  app.route({
    method: 'GET',
    url: '/libraries/:id/watching',
    config: { permission: 'libraries-write' },
    schema: {
      summary: "A library's folder watching",
      tags,
      params: IdParams,
      response: { 200: WatchStatus, 404: ErrorBody },
    },
    handler: async (req) => {
      const library = await deps.libraries.getFor(callerOf(req), req.params.id);
      return deps.watching.get(library.id) ?? stopped(library.id);
    },
  });
}
