import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { publicBaseUrl } from '../../http/public-url.js';
import { sendImage } from '../../http/send-image.js';
import type { App } from '../../http/types.js';
import { type Caller, callerOf, deviceHint } from '../../identity/index.js';
import { type BooksService, sendBookFile } from '../../catalog/index.js';
import { sendGeneratedEpub } from './send-generated-epub.js';
import type { KoboBookRow, KoboDelivery, KoboService } from './devices/service.js';
import type { DeliveriesService, ProgressService } from '../../reading/index.js';
import { KOBO_PREFIX } from './credentials.js';
import {
  authorNames,
  bookEntitlement,
  bookMetadata,
  isTextEpub,
  ownLocation,
  pageHref,
  pageOfHref,
  readingState,
  removedMetadata,
  shelfTag,
  koboTime,
  type KoboLocation,
  type KoboPosition,
  type Position,
} from './dto.js';
import { koboResources } from './resources.js';
import { decodeSyncToken, encodeSyncToken } from './sync-token.js';

export interface KoboApiDeps {
  kobo: KoboService;
  books: BooksService;
  progress: ProgressService;
  /** The KEPUBs, fixed-layout EPUBs and covers made for the device (reading/deliveries). */
  deliveries: DeliveriesService;
  /** `server.public_url`: the Kobo drops the port from `Host`, so links built from the request may miss it. */
  publicUrl: string | undefined;
}

const config = { permission: 'kobo-sync' } as const;
const schema = { hide: true } as const;
const BookParams = z.object({ token: z.string(), bookId: z.string().max(200) });
const Dimension = z.coerce.number().int().min(1).max(4000);
const CoverParams = z.object({
  token: z.string(),
  bookId: z.string().max(200),
  width: Dimension,
  height: Dimension,
  quality: z.string().max(20).optional(),
  grey: z.string().max(10),
});

const Bookmark = z.looseObject({
  ProgressPercent: z.number().min(0).max(100).nullish(),
  ContentSourceProgressPercent: z.number().min(0).max(100).nullish(),
  Location: z
    .looseObject({ Value: z.string().max(2000).optional(), Type: z.string().max(100).optional(), Source: z.string().max(2000).optional() })
    .nullish(),
  LastModified: z.string().max(50).optional(),
});
const StateUpdate = z.looseObject({
  ReadingStates: z
    .array(
      z.looseObject({
        EntitlementId: z.string().max(200).optional(),
        LastModified: z.string().max(50).optional(),
        CurrentBookmark: Bookmark.optional(),
        StatusInfo: z.looseObject({ Status: z.string().max(50).optional() }).optional(),
      }),
    )
    .min(1)
    .max(10),
});

const header = (req: FastifyRequest, name: string): string | null => {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first ? first.slice(0, 200) : null;
};
/** A bookmark's location when it names a KEPUB span. */
const spanOf = (location: KoboPosition['location'] | undefined) =>
  location?.Type === 'KoboSpan' && location.Source && location.Value ? location : null;
const deviceIdOf = (req: FastifyRequest) => header(req, 'x-kobo-deviceid');
const isoOrUndefined = (text: string | undefined) => (text && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : undefined);

/**
 * The Kobo store API a Kobo e-reader syncs with, under `/kobo/{api key}/` (the key holds `kobo-sync`): a presenter
 * over the books, pages, progress and Kobo services. Nothing is proxied to Kobo's store. See docs/kobo.md.
 */
export function registerKoboApi(app: App, deps: KoboApiDeps): void {
  const { kobo, books, progress, deliveries } = deps;
  /** `/kobo/{token}` as the device reaches it: `server.public_url` when set, else the request's scheme and host. */
  const baseOf = (req: FastifyRequest) =>
    `${publicBaseUrl(req, deps.publicUrl)}${KOBO_PREFIX}/${encodeURIComponent((req.params as { token: string }).token)}`;

  const positionOf = async (caller: Caller, bookId: string): Promise<Position | null> => {
    const found = await progress.position(caller, bookId);
    if (!found) return null;
    const { event } = found;
    return {
      progress: found.progress,
      event: event && {
        protocol: event.protocol,
        position: event.position,
        page: Number(event.page),
        percentage: event.percentage === null ? null : Number(event.percentage),
      },
    };
  };

  /**
   * Where a KEPUB on the device opens at a position read elsewhere (the web reader's CFI, else the start of the
   * page's document); null when the device has the book as it is, or the position is its own.
   */
  const elsewhere = async (
    caller: Caller,
    book: KoboBookRow,
    position: Position | null,
    delivery: KoboDelivery,
  ): Promise<KoboLocation | null> => {
    if (!position || !delivery.kepub || !isTextEpub(book) || ownLocation(position)?.location) return null;
    let locator: { href?: unknown; cfi?: unknown; progression?: unknown } | undefined;
    try {
      locator = position.event ? (JSON.parse(position.event.position) as { locator?: typeof locator }).locator : undefined;
    } catch {
      locator = undefined;
    }
    const page = pageHref(book, position.progress.current_page);
    const href =
      typeof locator?.href === 'string' && pageOfHref(book, locator.href) === position.progress.current_page ? locator.href : page;
    if (!href) return null;
    const at = await deliveries.spanAt(caller, book, href, {
      ...(href === locator?.href && typeof locator.cfi === 'string' ? { cfi: locator.cfi } : {}),
      ...(href === locator?.href && typeof locator.progression === 'number' ? { progression: locator.progression } : {}),
    });
    return at ? { Value: at.span, Type: 'KoboSpan', Source: at.source } : null;
  };

  app.register(
    async (scope) => {
      const k = scope as unknown as App;
      k.get('/v1/initialization', { config, schema }, async (req, reply) => {
        callerOf(req);
        const base = baseOf(req);
        // `e30=` is `{}` in base64: the store's API token, which the firmware expects and never checks.
        return reply.header('x-kobo-apitoken', 'e30=').send({ Resources: koboResources(base, publicBaseUrl(req, deps.publicUrl)) });
      });

      // The key in the path is the credential; the tokens the device asks for here are never checked.
      k.post('/v1/auth/device', { config, schema }, async (req) => {
        callerOf(req);
        const body = (req.body ?? {}) as { UserKey?: unknown };
        return {
          AccessToken: randomBytes(18).toString('base64url'),
          RefreshToken: randomBytes(18).toString('base64url'),
          TokenType: 'Bearer',
          TrackingId: randomUUID(),
          UserKey: typeof body.UserKey === 'string' ? body.UserKey.slice(0, 200) : '',
        };
      });

      k.get('/v1/library/sync', { config, schema }, async (req, reply) => {
        const caller = callerOf(req);
        const base = baseOf(req);
        const acknowledged = decodeSyncToken(req.headers['x-kobo-synctoken'], caller.apiKeyId ?? '');
        const page = await kobo.sync(caller, deviceIdOf(req), acknowledged);
        const delivery = await kobo.delivery(caller);
        const body: unknown[] = [];
        const states: unknown[] = [];
        for (const { change, book } of page.items) {
          const position = await positionOf(caller, book.id);
          const state = readingState(book, position, await elsewhere(caller, book, position, delivery));
          if (change === 'reading_state') {
            states.push({ ChangedReadingState: { ReadingState: state } });
            continue;
          }
          // A changed book goes as a new entitlement (the firmware updates it) and its state as a changed one:
          // the Kobo ignores a reading state inside a changed entitlement (Komga's KoboController says so).
          body.push({
            NewEntitlement: {
              BookEntitlement: bookEntitlement(book, false),
              BookMetadata: bookMetadata(book, base, delivery),
              ReadingState: state,
            },
          });
          if (change === 'changed') {
            body.push({ ChangedProductMetadata: { BookMetadata: bookMetadata(book, base, delivery) } });
            states.push({ ChangedReadingState: { ReadingState: state } });
          }
        }
        const now = new Date().toISOString();
        for (const id of page.removed)
          body.push({
            ChangedEntitlement: {
              BookEntitlement: bookEntitlement({ id, created_at: now, updated_at: now }, true),
              BookMetadata: removedMetadata(id),
            },
          });
        for (const { change, shelf } of page.shelves)
          body.push(change === 'new' ? { NewTag: shelfTag(shelf) } : { ChangedTag: shelfTag(shelf) });
        for (const id of page.removedShelves) body.push({ DeletedTag: { Tag: { Id: id, LastModified: koboTime(now) } } });
        reply.header('x-kobo-synctoken', encodeSyncToken(caller.apiKeyId ?? '', page.generation));
        if (page.more) reply.header('x-kobo-sync', 'continue');
        return reply.send([...body, ...states]);
      });

      k.get('/v1/library/:bookId/metadata', { config, schema: { ...schema, params: BookParams } }, async (req) => {
        const caller = callerOf(req);
        const book = await kobo.book(caller, req.params.bookId);
        return [bookMetadata(book, baseOf(req), await kobo.delivery(caller))];
      });

      k.get('/v1/library/:bookId/state', { config, schema: { ...schema, params: BookParams } }, async (req) => {
        const caller = callerOf(req);
        const book = await kobo.book(caller, req.params.bookId);
        const position = await positionOf(caller, book.id);
        return [readingState(book, position, await elsewhere(caller, book, position, await kobo.delivery(caller)))];
      });

      k.put(
        '/v1/library/:bookId/state',
        { config: { permission: 'kobo-sync' }, schema: { ...schema, params: BookParams, body: StateUpdate } },
        async (req) => {
          const caller = callerOf(req);
          const book = await kobo.book(caller, req.params.bookId);
          const update = req.body.ReadingStates[0]!;
          await writeState(caller, book, update, deviceIdOf(req), req);
          return {
            RequestResult: 'Success',
            UpdateResults: [
              {
                EntitlementId: book.id,
                CurrentBookmarkResult: { Result: 'Success' },
                StatisticsResult: { Result: 'Ignored' },
                StatusInfoResult: { Result: 'Success' },
              },
            ],
          };
        },
      );

      // The device's "remove from library": the book stays off this device until its key is replaced.
      k.delete('/v1/library/:bookId', { config, schema: { ...schema, params: BookParams } }, async (req, reply) => {
        await kobo.archive(callerOf(req), req.params.bookId);
        return reply.code(204).send();
      });

      k.get(
        '/v1/books/:bookId/file/:format',
        { config, schema: { ...schema, params: BookParams.extend({ format: z.enum(['epub', 'kepub', 'epub3fl']) }) } },
        async (req, reply) => {
          const caller = callerOf(req);
          const book = await kobo.book(caller, req.params.bookId);
          // The link names the form the metadata offered (the device keeps it): a KEPUB, the EPUB as it is, or a comic's EPUB.
          if (req.params.format === 'kepub' && isTextEpub(book)) return sendKepub(req, reply, caller, book);
          if (book.format === 'epub') return sendBookFile(req, reply, await books.file(caller, book.id));
          return sendFixedLayout(req, reply, caller, book);
        },
      );

      for (const url of [
        '/v1/books/:bookId/thumbnail/:width/:height/:grey/image.jpg',
        '/v1/books/:bookId/thumbnail/:width/:height/:quality/:grey/image.jpg',
      ])
        k.get(url, { config, schema: { ...schema, params: CoverParams } }, async (req, reply) => {
          const caller = callerOf(req);
          const book = await kobo.book(caller, req.params.bookId);
          const { width, height } = req.params;
          const grey = req.params.grey.toLowerCase() === 'true';
          return sendImage(req, reply, await deliveries.cover(caller, book, width, height, grey));
        });

      // Everything else of the store (recommendations, wishlists, analytics…): an empty answer, never a proxy.
      k.route({
        method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],
        url: '/*',
        config,
        schema,
        handler: async () => ({}),
      });
    },
    { prefix: `${KOBO_PREFIX}/:token` },
  );

  /** Writes the device's reading state to the progress ledger as protocol `kobo`. */
  async function writeState(
    caller: Caller,
    book: KoboBookRow,
    update: z.infer<typeof StateUpdate>['ReadingStates'][number],
    deviceId: string | null,
    req: FastifyRequest,
  ): Promise<void> {
    const status = update.StatusInfo?.Status ?? 'Reading';
    const bookmark = update.CurrentBookmark ?? {};
    const percent = bookmark.ProgressPercent ?? null;
    const clientAt = isoOrUndefined(update.LastModified ?? bookmark.LastModified);
    const hint = { ...deviceHint(req), ...(deviceId ? { deviceId } : {}) };
    const client = { id: deviceId, name: 'Kobo' };
    if (status === 'ReadyToRead' && !percent && !bookmark.Location) {
      await progress.clear(caller, book.id, hint, { protocol: 'kobo', position: { status }, client });
      // No progress row now: the device already shows the book unread.
      await kobo.positionFromDevice(caller, book.id, '');
      return;
    }
    const pageCount = book.page_count;
    let position: KoboPosition;
    let written;
    if (status === 'Finished') {
      // A finished book's bookmark is the first document (the Kobo sends it so): the last place read is kept.
      const previous = await positionOf(caller, book.id);
      const kept = previous?.event?.protocol === 'kobo' ? (JSON.parse(previous.event.position) as KoboPosition) : {};
      position = { ...kept, status, progress_percent: 100 };
      written = await progress.write(caller, book.id, { is_completed: true }, hint, {
        protocol: 'kobo',
        percentage: 1,
        position: { ...position },
        ...(clientAt ? { clientAt } : {}),
        client,
      });
    } else {
      const byLocation = bookmark.Location?.Source ? pageOfHref(book, bookmark.Location.Source) : null;
      const byPercent = percent === null ? 1 : Math.ceil((percent / 100) * pageCount);
      const page = Math.min(pageCount, Math.max(1, byLocation ?? byPercent));
      // A span of a KEPUB, mapped to the place the web reader opens at.
      const locator =
        isTextEpub(book) && (await kobo.delivery(caller)).kepub && spanOf(bookmark.Location)
          ? await deliveries.locatorOfSpan(caller, book, bookmark.Location!.Source!, bookmark.Location!.Value!)
          : null;
      position = {
        location: bookmark.Location ?? null,
        progress_percent: percent,
        content_source_progress_percent: bookmark.ContentSourceProgressPercent ?? null,
        status,
        ...(locator ? { locator } : {}),
      };
      written = await progress.write(caller, book.id, { current_page: page, is_completed: false }, hint, {
        protocol: 'kobo',
        ...(percent === null ? {} : { percentage: percent / 100 }),
        position: { ...position },
        ...(clientAt ? { clientAt } : {}),
        client,
      });
    }
    await kobo.positionFromDevice(caller, book.id, written.progress.updated_at);
  }

  /** The KEPUB, or the EPUB as it is when it cannot be converted: then the device's card says so (the person looks there). */
  async function sendKepub(req: FastifyRequest, reply: FastifyReply, caller: Caller, book: KoboBookRow): Promise<FastifyReply> {
    const made = await deliveries.kepub(caller, book);
    if ('plain' in made) {
      req.log.warn({ err: made.error, book_id: book.id }, 'The EPUB could not be converted to KEPUB; sent as it is');
      await kobo.noteDelivery(caller, book.id, `Could not be converted to KEPUB (${made.reason}); sent as the plain EPUB.`);
      return sendBookFile(req, reply, made.plain);
    }
    await kobo.noteDelivery(caller, book.id, null);
    return sendGeneratedEpub(req, reply, made.epub, made.fileName);
  }

  /** A comic or PDF as a fixed-layout EPUB fitted to the device's screen, as its settings say. */
  async function sendFixedLayout(req: FastifyRequest, reply: FastifyReply, caller: Caller, book: KoboBookRow): Promise<FastifyReply> {
    const made = await deliveries.fixedLayoutEpub(caller, book, authorNames(book.authors), await kobo.delivery(caller));
    return sendGeneratedEpub(req, reply, made.epub, made.fileName);
  }
}
