import { z } from 'zod';
import { parseJsonColumn } from '../db/json-column.js';

/** Renames camelCase keys of a request object to snake_case (requests accept both spellings; snake_case wins). */
export function snakeCaseKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [key, v] of entries) {
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake !== key && Object.prototype.hasOwnProperty.call(value, snake)) continue;
    out[snake] = v;
  }
  return out;
}

const withSnakeKeys = <T extends z.ZodType>(schema: T) => z.preprocess(snakeCaseKeys, schema);

export const ScanMode = z
  .enum(['normal', 'deep'])
  .meta({ id: 'ScanMode', description: '`normal` processes new or changed files only; `deep` re-processes every file.' });

export const LibraryMediaType = z.enum(['auto', 'manga', 'comics', 'books']).meta({
  id: 'LibraryMediaType',
  description:
    "What the library holds, for the metadata sources asked about its series: `auto` decides per series from its books' formats and language (EPUB and PDF: books; Japanese, Korean or Chinese: manga; otherwise comics).",
});

export const ScanningConfig = z
  .object({
    enabled: z.boolean().describe('Turns on automatic scanning on `cron_schedule`.'),
    cron_schedule: z.string().nullable().describe('Cron expression with five fields (minute hour day-of-month month day-of-week).'),
    default_mode: ScanMode,
    scan_on_start: z.boolean().describe('Scan when the server starts.'),
    import_lists: z
      .boolean()
      .describe(
        "Scans make shared lists from the books' ComicInfo (on unless set to false): a collection for each `SeriesGroup` name, holding " +
          'the series whose present books carry it, and a read list for each `StoryArc` (and `AlternateSeries`) name, holding the present ' +
          'books that carry it in `StoryArcNumber` order. Lists are computed over the present books of every library with this option on, ' +
          "kept in step by each such library's scan, and removed when no book carries their name any more. A list a person has changed " +
          'since (`edited`), and a shared list made by a person with the same name, are left alone.',
      ),
    watch: z
      .boolean()
      .describe(
        'Watches the folder: new, changed, moved and removed files are scanned by themselves (only the folders that changed), once the folder has been quiet for `watch_quiet_seconds`.',
      ),
    watch_poll_seconds: z
      .number()
      .nullable()
      .describe(
        'Null: file-system events. A number of seconds: the folder is walked that often instead, for network shares and containers where events do not arrive.',
      ),
    watch_quiet_seconds: z
      .number()
      .describe('How long a changed folder must be quiet (and its files keep their size and time) before it is scanned.'),
    write_comicinfo: z
      .boolean()
      .describe(
        "Off unless set: a person's metadata edits (and their undo) are written into the library's CBZ files as ComicInfo.xml. Each file is " +
          'copied beside itself with the new ComicInfo.xml and renamed over the old one, never changed in place; its hash, size and time in ' +
          'the catalog follow, so scans see it unchanged. CBR, PDF and EPUB files, and read-only files or folders, are not written ' +
          '(docs/metadata-editing.md).',
      ),
    exclude: z
      .array(z.string())
      .describe(
        'Glob patterns of paths (relative to the library folder, `/` separators) that are not part of the library, e.g. `**/extras/**` or `**/*.tmp.cbz`. `*` matches within a name, `**` across folders, `?` one character.',
      ),
    media_type: LibraryMediaType,
    identify_after_scan: z
      .boolean()
      .describe(
        'Off unless set: after each scan that adds series, a `identify_library` task looks up the series not matched yet with the metadata sources an administrator turned on (docs/metadata-sources.md).',
      ),
    identify_schedule: z
      .string()
      .nullable()
      .describe(
        'Cron expression (five fields) on which the series already matched are refreshed from the entry they matched; null: never.',
      ),
  })
  .meta({ id: 'ScanningConfig' });
export type ScanningConfig = z.infer<typeof ScanningConfig>;

export const DEFAULT_SCANNING_CONFIG: ScanningConfig = {
  enabled: false,
  cron_schedule: null,
  default_mode: 'normal',
  scan_on_start: false,
  import_lists: true,
  watch: true,
  watch_poll_seconds: null,
  watch_quiet_seconds: 10,
  write_comicinfo: false,
  exclude: [],
  media_type: 'auto',
  identify_after_scan: false,
  identify_schedule: null,
};

/** A library's stored `scanning_config` JSON over the defaults (unreadable JSON is the defaults); libraries and scans both read it. */
export function parseScanningConfig(text: string): ScanningConfig {
  return { ...DEFAULT_SCANNING_CONFIG, ...parseJsonColumn<Partial<ScanningConfig>>(text, {}) };
}

/** Whether scans of a library make lists from ComicInfo (`import_lists`; stored configurations without it: yes). */
export const importsLists = (config: ScanningConfig): boolean => config.import_lists !== false;

export const ScanningConfigInput = withSnakeKeys(
  z.strictObject({
    enabled: z.boolean().optional(),
    cron_schedule: z.string().max(200).nullable().optional(),
    default_mode: ScanMode.optional(),
    scan_on_start: z.boolean().optional(),
    import_lists: z.boolean().optional(),
    watch: z.boolean().optional(),
    watch_poll_seconds: z.number().min(1).max(86_400).nullable().optional(),
    watch_quiet_seconds: z.number().min(0.05).max(3600).optional(),
    write_comicinfo: z.boolean().optional(),
    exclude: z.array(z.string().min(1).max(500)).max(100).optional(),
    media_type: LibraryMediaType.optional(),
    identify_after_scan: z.boolean().optional(),
    identify_schedule: z.string().max(200).nullable().optional(),
  }),
).meta({
  id: 'ScanningConfigUpdate',
  description: 'Any subset of the scanning configuration; omitted fields keep their value (or default).',
});
export type ScanningConfigInput = z.infer<typeof ScanningConfigInput>;

const LibraryFields = z.object({
  id: z.uuid(),
  name: z.string(),
  path: z.string().describe('Absolute path of the library folder on the server.'),
  scanning_config: ScanningConfig,
  series_count: z.number().int().describe('Series present in the library.'),
  book_count: z.number().int().describe('Books present in the library.'),
  last_scanned_at: z.string().nullable().describe('When the last scan finished successfully.'),
  created_at: z.string(),
  updated_at: z.string(),
});
/** A library as the services know it, its folder included. */
export type LibraryView = z.infer<typeof LibraryFields>;

/** A library as the API shows it: where it lives on the server only to those who manage libraries. */
export const LibraryResponse = LibraryFields.extend({
  path: z
    .string()
    .optional()
    .describe(
      'Absolute path of the library folder on the server. Shown only to callers with `libraries-write` (those who manage libraries); absent for everyone else.',
    ),
}).meta({ id: 'Library' });
export type LibraryResponse = z.infer<typeof LibraryResponse>;

const name = z.string().trim().min(1, 'must not be empty').max(200);
const path = z.string().min(1, 'must not be empty').max(4096);

export const LibraryCreate = withSnakeKeys(
  z.object({
    name,
    path,
    scanning_config: ScanningConfigInput.optional(),
  }),
).meta({ id: 'LibraryCreate' });
export type LibraryCreate = z.infer<typeof LibraryCreate>;

/** PUT: name and path are required, like create; an omitted scanning_config keeps the current one. */
export const LibraryReplace = LibraryCreate;

export const LibraryPatch = withSnakeKeys(
  z.object({
    name: name.optional(),
    path: path.optional(),
    scanning_config: ScanningConfigInput.optional(),
  }),
).meta({ id: 'LibraryPatch' });
export type LibraryPatch = z.infer<typeof LibraryPatch>;

export const PurgeResult = z
  .object({
    library_id: z.uuid(),
    books_purged: z.number().int(),
    series_purged: z.number().int(),
  })
  .meta({ id: 'PurgeResult' });
export type PurgeResult = z.infer<typeof PurgeResult>;
