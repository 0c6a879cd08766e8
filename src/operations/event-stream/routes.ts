import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { EventBus } from '../../events/bus.js';
import {
  ENTITY_EVENTS,
  INBOX_EVENTS,
  SCAN_EVENTS,
  type InboxEventName,
  type EntityEventName,
  type EventMap,
  type ScanEventName,
  type TaskProgressEvent,
  type TaskProgressPublished,
} from '../../events/types.js';
import type { SseHub } from '../../http/sse.js';
import { EntityEventMessage, InboxEventMessage, ScanEventMessage, streamOf, TaskProgressMessage } from './schemas.js';
import type { App } from '../../http/types.js';
import { type AccessService, type Caller, type CallerAgain, holdsRule, inScope, type Permission, scopeFor } from '../../identity/index.js';

/**
 * Whether a caller may hear of an event: libraries-read, the event's library in its scope, and its series (when it
 * names one and the caller's series rules restrict) one the caller sees. A stream carries nothing about what the
 * caller cannot see, not even an id.
 */
async function mayHear(access: AccessService, caller: Caller, e: { library_id: string; series_id?: string }): Promise<boolean> {
  if (!caller.permissions.has('libraries-read')) return false;
  const scope = scopeFor(caller);
  if (scope.all) return true;
  if (!inScope(scope, e.library_id)) return false;
  if (!scope.series || !e.series_id) return true;
  return (await access.visible(caller, [{ library_id: e.library_id, series_id: e.series_id }])).length === 1;
}

const SSE_HEADERS = z.object({ accept: z.string().optional() });

const STREAM_DOC =
  'Server-sent events: send `Accept: text/event-stream`. Each message is `id: <id>`, `event: <name>` then `data: <JSON>`; a new stream starts with an event `ready` (data `{}`) whose id marks where it starts; a client that reconnects with `Last-Event-ID` (EventSource does) first gets the events it missed since that one, from the last 5,000 the instance heard (every instance behind a load balancer hears every event); every connection receives the comment `: keep-alive` every 15 seconds (config `events.keepalive_seconds`). What a stream may carry is judged with its caller as they are when each event happens (access taken away applies to the next event), and a stream whose caller is refused since it opened (key revoked, logged out, account disabled, permission gone) is closed.';

const ENTITY_DOC = `${STREAM_DOC}

Events (data: \`{type, book_id?, series_id, library_id, timestamp}\`, \`type\` equal to the event name), and what emits them:
- \`library_created\` (POST /libraries), \`library_updated\` (PUT/PATCH /libraries/{id}, and when a scan finishes), \`library_deleted\` (DELETE /libraries/{id})
- \`series_created\`, \`series_updated\`, \`series_deleted\` (scans: a new folder, changed metadata or book count, a folder whose books all disappeared; library deletion and purge)
- \`book_created\`, \`book_updated\`, \`book_deleted\` (scans: new or restored file, changed/re-analysed/moved file, missing file; analysis tasks; purge). A restored book (its file back after a soft delete) is \`book_created\` and its series, if it was soft-deleted too, \`series_created\`: they reappear in lists as if new, keeping their ids. Deleting a library sends \`series_deleted\` per series and \`library_deleted\`, not one \`book_deleted\` per book
- \`cover_updated\` (a book's cover changed during a scan or analysis)

- \`inbox_item_added\` (a file in an inbox folder analysed and put in the review queue), \`inbox_item_filed\` (an accepted file became a book: \`book_id\`, \`series_id\`), data \`{type, item_id, library_id, status, book_id?, series_id?, timestamp}\`; only to callers with books-write on the library

Only events about what the caller may see are sent (its libraries; for a user with an age limit or sharing labels, its series). Not rate limited.`;

const TASK_DOC = `${STREAM_DOC}

Event \`task_progress\` with data \`{task_id, task_type, status, progress: {current, total, message}}\`, sent when a task starts, reports progress, and ends (status \`completed\`, \`failed\` or \`cancelled\`). Only tasks the caller may see are sent (as GET /tasks: those of its libraries and those of none).`;

const SCAN_DOC = `${STREAM_DOC}

Events \`scan_started\`, \`scan_progress\`, \`scan_completed\`, \`scan_failed\` (with \`error\`), \`scan_cancelled\`, each with data \`{type, library_id, task_id, mode, timestamp, files_discovered, files_processed, series_created, books_added, books_updated, books_deleted, books_restored, books_unchanged, errors}\`.`;

export interface EventRouteDeps {
  bus: EventBus;
  hub: SseHub;
  access: AccessService;
  /** The stream's caller as the database says now (auth hooks). */
  callerAgain: CallerAgain;
}

/** What `/tasks/stream` sends of a task's progress: the library it belongs to is for judging who may hear it. */
const taskProgressOnWire = (e: TaskProgressPublished): TaskProgressEvent => ({
  task_id: e.task_id,
  task_type: e.task_type,
  status: e.status,
  progress: e.progress,
});

export function registerEventRoutes(app: App, deps: EventRouteDeps): void {
  const { bus, hub, access } = deps;
  /**
   * A stream outlives the request that opened it, so its caller is resolved again for the events that come: once
   * for all events that arrived before that resolution began, so each is judged with the caller's access as it
   * stood when the event was emitted or later. A caller refused by then (revoked key, logout, disabled) or without
   * the route's permission any more gets the stream closed.
   */
  const stream =
    <K extends keyof EventMap>(
      names: readonly K[],
      permission: Permission,
      filter: (caller: Caller, payload: EventMap[K]) => boolean | Promise<boolean>,
      onWire: (payload: EventMap[K]) => unknown = (payload) => payload,
    ) =>
    (req: FastifyRequest, reply: FastifyReply): void => {
      const sse = hub.open(reply);
      let caller: Promise<Caller | undefined> | undefined;
      // Checks may ask the database: chained, so a connection gets its events in the order they happened.
      let sent: Promise<void> = Promise.resolve();
      const deliver = (name: K, payload: EventMap[K], id: string) => {
        caller = undefined;
        sent = sent
          .then(async () => {
            if (sse.closed) return;
            const now = await (caller ??= deps.callerAgain(req));
            if (!now || !holdsRule(now.permissions, permission)) return sse.close();
            if (await filter(now, payload)) sse.send(name, onWire(payload), id);
          })
          .catch(() => undefined);
      };
      // A client back after a lost connection (`Last-Event-ID`, which EventSource sends by itself) first gets what it
      // missed, from the events this instance has heard: every instance hears every event, so it may reconnect to any.
      const lastId = req.headers['last-event-id'];
      const known = typeof lastId === 'string' && lastId !== '' ? bus.since(lastId) : null;
      const missed = known ?? [];
      // Where a new stream starts, for a client that loses it before its first event (a replay names its own).
      const latest = bus.latestId();
      if (known === null && latest) sse.position(latest);
      const wanted = new Set<string>(names);
      const replayed = new Set<string>();
      for (const e of missed)
        if (wanted.has(e.event)) {
          replayed.add(e.id);
          deliver(e.event as K, e.payload as EventMap[K], e.id);
        }
      for (const name of names) {
        const off = bus.on(name, (payload, _event, id) => {
          if (!replayed.has(id)) deliver(name, payload, id);
        });
        sse.onClose(off);
      }
    };

  app.route({
    method: 'GET',
    url: '/events/stream',
    config: { permission: 'libraries-read', rateLimit: false },
    schema: {
      summary: 'SSE stream of entity events',
      description: ENTITY_DOC,
      tags: ['events'],
      headers: SSE_HEADERS,
      produces: ['text/event-stream'],
      response: streamOf(
        z.union([EntityEventMessage, InboxEventMessage]),
        'Entity and inbox events, as `event: <type>` and `data: <EntityEvent | InboxEvent>`.',
      ),
    },
    handler: stream<EntityEventName | InboxEventName>([...ENTITY_EVENTS, ...INBOX_EVENTS], 'libraries-read', (caller, e) =>
      'item_id' in e && !caller.permissions.has('books-write') ? false : mayHear(access, caller, e),
    ),
  });

  app.route({
    method: 'GET',
    url: '/tasks/stream',
    config: { permission: 'tasks-read' },
    schema: {
      summary: 'SSE stream of task progress',
      description: TASK_DOC,
      tags: ['events', 'tasks'],
      headers: SSE_HEADERS,
      produces: ['text/event-stream'],
      response: streamOf(TaskProgressMessage, 'Task progress, as `event: task_progress` and `data: <TaskProgressEvent>`.'),
    },
    // Tasks of a library the caller does not see are not heard of, as GET /tasks does not list them.
    handler: stream(
      ['task_progress'],
      'tasks-read',
      (caller, e) => e.library_id === null || inScope(scopeFor(caller), e.library_id),
      taskProgressOnWire,
    ),
  });

  app.route({
    method: 'GET',
    url: '/scans/stream',
    config: { permission: 'libraries-read' },
    schema: {
      summary: 'SSE stream of scan progress',
      description: SCAN_DOC,
      tags: ['events', 'scans'],
      headers: SSE_HEADERS,
      produces: ['text/event-stream'],
      response: streamOf(ScanEventMessage, 'Scan events, as `event: <type>` and `data: <ScanEvent>`.'),
    },
    handler: stream<ScanEventName>(SCAN_EVENTS, 'libraries-read', (caller, e) => mayHear(access, caller, { library_id: e.library_id })),
  });
}
