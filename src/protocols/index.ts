/**
 * Protocols: the same services presented to other clients. Presenters only: no rules of their own.
 *
 * - opds: OPDS 1.2 (Atom) and 2.0 (JSON) feeds, page streaming and OPDS Progression.
 * - komga: the Komga-compatible API (Mihon and other Komga apps): prefix gate, sessions, DTOs, filters.
 * - kobo: Kobo e-readers' store and library sync (what it sends is made by reading's deliveries); `devices/` the devices.
 * - koreader: KOReader sync (kosync), its setup route, positions attached when a scan adds their book.
 * - export: a person's own data as one JSON file (`/me/export`, `/users/{id}/export`), read lists as CBL too.
 *
 * The face: what other areas may use of this one.
 */
export { koboCredentials } from './kobo/credentials.js';
export { KoboRepository } from './kobo/devices/repository.js';
export { registerKoboRoutes } from './kobo/devices/routes.js';
export { KoboService } from './kobo/devices/service.js';
export { registerKoboApi } from './kobo/routes.js';
export { registerKomgaGate } from './komga/gate.js';
export { registerKomgaApi } from './komga/routes.js';
export { KomgaSessions } from './komga/session.js';
export type { KomgaSession } from './komga/session.js';
export { attachKosyncOnBookEvents } from './koreader/attach.js';
export { KosyncRepository } from './koreader/repository.js';
export { kosyncCredentials, registerKosyncRoutes } from './koreader/routes.js';
export { KosyncService } from './koreader/service.js';
export { registerKosyncSetupRoute } from './koreader/setup-routes.js';
export { registerFeeds } from './opds/shared/register.js';

import { registerExportRoutes, type ExportSources } from './export/routes.js';
import type { FastifyBaseLogger } from 'fastify';
import type { BooksService, MetadataService, SeriesService } from '../catalog/index.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/connection.js';
import type { ComposedArea } from '../http/area.js';
import { resolveJwtSecret, type Credentials } from '../identity/index.js';
import type { LibraryService } from '../libraries/index.js';
import type { CollectionsService, ReadListsService, WantToReadService } from '../lists/index.js';
import type { SettingsService } from '../operations/index.js';
import type { DeliveriesService, PagesService, ProgressService } from '../reading/index.js';
import { koboCredentials } from './kobo/credentials.js';
import { KoboRepository } from './kobo/devices/repository.js';
import { registerKoboRoutes } from './kobo/devices/routes.js';
import { KoboService } from './kobo/devices/service.js';
import { registerKoboApi } from './kobo/routes.js';
import { registerKomgaGate } from './komga/gate.js';
import { registerKomgaApi } from './komga/routes.js';
import { KomgaSessions } from './komga/session.js';
import { attachKosyncOnBookEvents } from './koreader/attach.js';
import { KosyncRepository } from './koreader/repository.js';
import { kosyncCredentials, registerKosyncRoutes } from './koreader/routes.js';
import { KosyncService } from './koreader/service.js';
import { registerKosyncSetupRoute } from './koreader/setup-routes.js';
import { registerFeeds } from './opds/shared/register.js';

export interface ProtocolsDeps {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  settings: SettingsService;
  /** The services presented. */
  libraries: LibraryService;
  series: SeriesService;
  books: BooksService;
  metadata: MetadataService;
  pages: PagesService;
  progress: ProgressService;
  deliveries: DeliveriesService;
  collections: CollectionsService;
  readLists: ReadListsService;
  wantToRead: WantToReadService;
  /** Ends a session for good (AuthService.endSession): logging out must not leave a copy of the Komga cookie working. */
  endSession(sessionId: string, until: Date): Promise<void>;
  /** A person's preferences and a user as a caller of their own: the data export presents them. */
  preferences: ExportSources['preferences'];
  callerOfUser: ExportSources['callerOf'];
}

export interface ProtocolsServices {
  /** Kobo e-readers' library sync: their devices and what each was sent. */
  kobo: KoboService;
  /** Present when `koreader.enabled`. */
  kosync: KosyncService | undefined;
}

export function compose(deps: ProtocolsDeps): ComposedArea<ProtocolsServices, Credentials> {
  const { config, database, settings } = deps;
  const publicUrl = config.server.public_url;
  const sessions = new KomgaSessions(() => resolveJwtSecret(config));
  const kobo = new KoboService(new KoboRepository(database), () => config.kobo.sync_item_limit);
  const kosync = config.koreader.enabled ? new KosyncService(new KosyncRepository(database), deps.progress) : undefined;
  const presented = {
    libraries: deps.libraries,
    series: deps.series,
    books: deps.books,
    metadata: deps.metadata,
    pages: deps.pages,
    progress: deps.progress,
    collections: deps.collections,
    readLists: deps.readLists,
  };
  return {
    services: { kobo, kosync },
    wiring: {
      // The Komga API's prefix gate runs before authentication (a disabled or moved API is a 404, not a 401), and
      // its session cookie is one more credential source for its own routes; Kobo and KOReader carry theirs in the path.
      beforeAuth: [
        (app) => registerKomgaGate(app, { settings, sessions }).credentials,
        () => (config.kobo.enabled ? koboCredentials : undefined),
        () => (config.koreader.enabled ? kosyncCredentials(config.koreader.prefix) : undefined),
      ],
      api: [
        (v1) => registerKosyncSetupRoute(v1, { enabled: config.koreader.enabled, prefix: config.koreader.prefix, publicUrl }),
        (v1) => registerKoboRoutes(v1, kobo, { enabled: config.kobo.enabled, publicUrl }),
        (v1) =>
          registerExportRoutes(v1, {
            progress: deps.progress,
            collections: deps.collections,
            readLists: deps.readLists,
            wantToRead: deps.wantToRead,
            preferences: deps.preferences,
            callerOf: deps.callerOfUser,
          }),
      ],
      root: [
        // OPDS feeds live at the server root, outside /api/v1, behind the same auth and rate-limit hooks.
        (app) =>
          registerFeeds(
            app,
            { ...presented, wantToRead: deps.wantToRead },
            { thumbnailWidth: () => settings.peek('thumbnail_width'), publicUrl },
          ),
        // The Komga-compatible API under /{prefix}/api/v1 (and v2): off unless the admin setting enables it.
        (app) => registerKomgaApi(app, { ...presented, sessions, endSession: deps.endSession }),
        (app) => {
          if (config.kobo.enabled)
            registerKoboApi(app, {
              kobo,
              books: deps.books,
              progress: deps.progress,
              deliveries: deps.deliveries,
              publicUrl,
            });
        },
        (app) => {
          if (kosync) registerKosyncRoutes(app, kosync, { prefix: config.koreader.prefix, settings });
        },
      ],
      // A KOReader position sent before its book was cataloged attaches as soon as a scan adds the book.
      listen: (events) => {
        if (kosync) attachKosyncOnBookEvents(events, kosync, deps.log);
      },
    },
  };
}
