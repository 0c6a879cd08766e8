import { z } from 'zod';
import type { Config } from '../../config/schema.js';
import { cronError } from '../../tasks/scheduler.js';

export interface SettingDefinition<T = unknown> {
  schema: z.ZodType<T>;
  description: string;
  /** The default comes from the configuration file, so an operator's config stays the baseline. */
  defaultFrom(config: Config): T;
}

const define = <T>(schema: z.ZodType<T>, description: string, defaultFrom: (config: Config) => T): SettingDefinition<T> => ({
  schema,
  description,
  defaultFrom,
});

/** Every admin setting: key → value schema, meaning, default. Unknown keys are rejected. */
export const SETTINGS = {
  registration_enabled: define(
    z.boolean(),
    'Anyone may create a reader account with POST /auth/register.',
    (c) => c.auth.registration_enabled,
  ),
  email_verification_required: define(
    z.boolean(),
    'New accounts must verify their e-mail address before they can log in.',
    (c) => c.auth.email_verification_required,
  ),
  rate_limit_enabled: define(z.boolean(), 'Token-bucket rate limiting on every API endpoint.', (c) => c.rate_limit.enabled),
  rate_limit_anonymous_rps: define(
    z.number().positive().max(100_000),
    'Anonymous clients (by IP): tokens refilled per second.',
    (c) => c.rate_limit.anonymous.requests_per_second,
  ),
  rate_limit_anonymous_burst: define(
    z.number().int().positive().max(1_000_000),
    'Anonymous clients (by IP): burst size.',
    (c) => c.rate_limit.anonymous.burst,
  ),
  rate_limit_authenticated_rps: define(
    z.number().positive().max(100_000),
    'Authenticated clients (by user): tokens refilled per second.',
    (c) => c.rate_limit.authenticated.requests_per_second,
  ),
  rate_limit_authenticated_burst: define(
    z.number().int().positive().max(1_000_000),
    'Authenticated clients (by user): burst size.',
    (c) => c.rate_limit.authenticated.burst,
  ),
  thumbnail_width: define(
    z.number().int().min(16).max(4000),
    'Width in pixels of cover thumbnails (the API, OPDS and Komga serve and pre-generate this size); takes effect at once.',
    (c) => c.thumbnails.width,
  ),
  metadata_auto_threshold: define(
    z.number().min(0.5).max(1),
    'Identification applies a match without asking when its score is at or above this (and the runner-up at least 0.1 lower); takes effect at once.',
    (c) => c.metadata.auto_threshold,
  ),
  backup_enabled: define(z.boolean(), 'Back up on `backup_schedule` (Administration → Backups).', () => true),
  backup_schedule: define(
    z.string().refine((v) => cronError(v) === null, 'a cron expression with five fields'),
    'When scheduled backups are taken (cron, five fields); default every day at 03:00.',
    () => '0 3 * * *',
  ),
  backup_keep: define(
    z.number().int().min(1).max(1000),
    'How many backups the folder keeps: older ones are removed after each backup.',
    () => 7,
  ),
  backup_folder: define(z.string().max(4096), 'Where backups are written; empty: `<data_dir>/backups`.', () => ''),
  komga_api_enabled: define(z.boolean(), 'Serve the Komga-compatible API.', (c) => c.komga_api.enabled),
  komga_api_prefix: define(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a single path segment of letters, digits, _ or -'),
    'Path prefix of the Komga-compatible API (/<prefix>/api/v1/); takes effect at once, without a restart.',
    (c) => c.komga_api.prefix,
  ),
  new_users_see_all_libraries: define(
    z.boolean(),
    'A new account (registered, or created without library_access) sees every library; when off it sees none until an administrator grants some.',
    () => true,
  ),
  password_sign_in_disabled: define(
    z.boolean(),
    'The web app offers only the sign-in providers (OpenID Connect): password sign-in is refused, except for administrators (so the last one is never locked out; `?local=1` shows them the form). API keys, and so OPDS, KOReader and Komga apps, keep working.',
    () => false,
  ),
  inbox_upload_max_mb: define(
    z.number().int().min(1).max(1_048_576),
    'The largest file an upload into an inbox folder may be, in megabytes (an upload also needs that much free space, and 64 MB more).',
    () => 4096,
  ),
  task_retention_days: define(z.number().int().min(1).max(3650), 'Finished background tasks older than this are removed.', () => 30),
} satisfies Record<string, SettingDefinition<boolean> | SettingDefinition<number> | SettingDefinition<string>>;

export type SettingKey = keyof typeof SETTINGS;
export type SettingValue<K extends SettingKey> = z.infer<(typeof SETTINGS)[K]['schema']>;

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}
