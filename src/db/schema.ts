import type { DuplicateTables } from './tables/duplicates.js';
import type { CatalogTables } from './tables/catalog.js';
import type { CoverTables } from './tables/covers.js';
import type { InboxTables } from './tables/inbox.js';
import type { IdentityTables } from './tables/identity.js';
import type { KoboTables } from './tables/kobo.js';
import type { ListTables } from './tables/lists.js';
import type { OidcTables } from './tables/oidc.js';
import type { MetadataTables } from './tables/metadata.js';
import type { ReadingTables } from './tables/reading.js';
import type { SettingsTables } from './tables/settings.js';
import type { TaskTables } from './tables/tasks.js';
import type { WatchingTables } from './tables/watching.js';

/**
 * Table types for Kysely, one file per area under tables/. Conventions on both engines: ids are UUID text,
 * timestamps ISO 8601 UTC text (sortable as text), booleans integers 0/1, JSON documents text. One shape,
 * so repositories never branch on the engine except for full-text search.
 */
export interface DB
  extends
    SettingsTables,
    IdentityTables,
    CatalogTables,
    TaskTables,
    ReadingTables,
    DuplicateTables,
    ListTables,
    CoverTables,
    KoboTables,
    MetadataTables,
    OidcTables,
    WatchingTables,
    InboxTables {}
