import type { DialectMigration } from '../dialect-migration.js';
import { settings } from './0001_settings.js';
import { identity } from './0002_identity.js';
import { catalog } from './0003_catalog.js';
import { tasks } from './0004_tasks.js';
import { preferences } from './0005_preferences.js';
import { reading } from './0006_reading.js';
import { search } from './0007_search.js';
import { duplicates } from './0008_duplicates.js';
import { browsePerf } from './0010_browse_perf.js';
import { seriesReadCounts } from './0011_series_read_counts.js';
import { securityStamp } from './0012_security_stamp.js';
import { koreaderSync } from './0013_koreader_sync.js';
import { progressClientTime } from './0014_progress_client_time.js';
import { deviceDetails } from './0015_device_details.js';
import { householdAccess } from './0016_household_access.js';
import { lists } from './0017_lists.js';
import { metadataEditing } from './0018_metadata_editing.js';
import { covers } from './0019_covers.js';
import { oidc } from './0020_oidc.js';
import { koboSync } from './0021_kobo_sync.js';
import { watching } from './0023_watching.js';
import { koboDeliveryProblem } from './0024_kobo_delivery_problem.js';
import { metadataResponses } from './0025_metadata_responses.js';
import { identify } from './0026_identify.js';
import { progressEntryIds } from './0027_progress_entry_ids.js';
import { inbox } from './0028_inbox.js';

/** Every migration, applied in key order. Append only: never edit one that has shipped. */
export const migrations: Record<string, DialectMigration> = {
  '0001_settings': settings,
  '0002_identity': identity,
  '0003_catalog': catalog,
  '0004_tasks': tasks,
  '0005_preferences': preferences,
  '0006_reading': reading,
  '0007_search': search,
  '0008_duplicates': duplicates,
  '0010_browse_perf': browsePerf,
  '0011_series_read_counts': seriesReadCounts,
  '0012_security_stamp': securityStamp,
  '0013_koreader_sync': koreaderSync,
  '0014_progress_client_time': progressClientTime,
  '0015_device_details': deviceDetails,
  '0016_household_access': householdAccess,
  '0017_lists': lists,
  '0018_metadata_editing': metadataEditing,
  '0019_covers': covers,
  '0020_oidc': oidc,
  '0021_kobo_sync': koboSync,
  '0023_watching': watching,
  '0024_kobo_delivery_problem': koboDeliveryProblem,
  '0025_metadata_responses': metadataResponses,
  '0026_identify': identify,
  '0027_progress_entry_ids': progressEntryIds,
  '0028_inbox': inbox,
};
