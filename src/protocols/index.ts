/**
 * Protocols: the same services presented to other clients. Presenters only: no rules of their own.
 *
 * - opds: OPDS 1.2 (Atom) and 2.0 (JSON) feeds, page streaming and OPDS Progression.
 * - komga: the Komga-compatible API (Mihon and other Komga apps): prefix gate, sessions, DTOs, filters.
 * - kobo: Kobo e-readers' store and library sync, their fixed-layout EPUBs and KEPUBs; `devices/` the devices.
 * - koreader: KOReader sync (kosync), its setup route, positions attached when a scan adds their book.
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
export { attachKosyncOnBookEvents } from './koreader/attach.js';
export { KosyncRepository } from './koreader/repository.js';
export { kosyncCredentials, registerKosyncRoutes } from './koreader/routes.js';
export { KosyncService } from './koreader/service.js';
export { registerKosyncSetupRoute } from './koreader/setup-routes.js';
export { registerFeeds } from './opds/shared/register.js';
