import { z } from 'zod';
import { isTrustedPeerEntry } from './trusted-peers.js';

/**
 * The one configuration schema. Every key has a default, so an empty configuration serves on
 * http://0.0.0.0:8080 with SQLite under ./data. Objects are strict: an unknown key is a typo that
 * would otherwise be silently ignored, so it stops startup.
 */

// Env values are parsed as YAML scalars, so a numeric password arrives as a number: strings accept it back.
const text = (schema: z.ZodString = z.string()) =>
  z.preprocess((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), schema);

const port = z.number().int().min(0).max(65535);

const role = z.enum(['admin', 'maintainer', 'reader']);

/** One OpenID Connect provider (docs/sign-in.md). Administration adds more at run time, stored in the database. */
export const OidcProviderConfig = z
  .strictObject({
    /** Part of the redirect URI (`/api/v1/auth/oidc/<id>/callback`): letters, digits, `-` and `_`. */
    id: text(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, - and _ (at most 40)')),
    /** Shown on the button: "Sign in with <name>". */
    name: text(z.string().min(1).max(60)),
    issuer: text(z.string().url()),
    client_id: text(z.string().min(1)),
    client_secret: text().optional(),
    /** A file holding the secret (Docker/Kubernetes secrets); trailing whitespace is ignored. */
    client_secret_file: text().optional(),
    scopes: z.array(text()).default(['openid', 'profile', 'email']),
    /** How the provider returns to Colophon: `query` (a redirect) or `form_post` (a POSTed form). */
    response_mode: z.enum(['query', 'form_post']).default('query'),
    /** Create an account for someone the provider signed in who has none yet. */
    provision: z.boolean().default(false),
    default_role: role.default('reader'),
    /** Link an existing account whose e-mail address equals the provider's *verified* address. */
    match_email: z.boolean().default(false),
    /** The claim holding the person's groups or roles (e.g. `groups`); re-read at each sign-in. */
    groups_claim: text().optional(),
    /** Group → role; the highest role among the person's groups wins, `default_role` when none matches. */
    role_map: z.record(z.string(), role).default({}),
    /**
     * Group → the libraries its members see (names or ids; `*`: every library). When set, the provider decides the
     * libraries of the people it signs in, at every sign-in: the union of their groups' libraries, none without one.
     */
    library_map: z.record(z.string(), z.array(text(z.string().min(1).max(200))).max(1000)).default({}),
    /** Accept an `http://` issuer (a provider on the LAN, or a test); refused otherwise. */
    allow_http: z.boolean().default(false),
    /** Offered on the sign-in page and usable; a provider set to false is kept but nobody signs in with it. */
    enabled: z.boolean().default(true),
  })
  .refine((p) => p.allow_http || p.issuer.startsWith('https://'), {
    message: 'must be an https:// URL (set allow_http for a provider on the LAN)',
    path: ['issuer'],
  });

/** An online database Colophon identifies series with: where it is asked (a mirror, a proxy or a test server). */
const provider = (base: string) => z.strictObject({ base_url: text(z.string().url()).default(base) }).prefault({});

const bucket = (rps: number, burst: number) =>
  z
    .strictObject({
      requests_per_second: z.number().positive().default(rps),
      burst: z.number().int().positive().default(burst),
    })
    .prefault({});

export const ConfigSchema = z.strictObject({
  server: z
    .strictObject({
      /**
       * What this process does: `all` (requests and background work, one process), `web` (requests only: scans,
       * analysis, covers, identification and backups are queued for a worker), `worker` (the background work, and
       * no HTTP but `/health`). `web` and `worker` need PostgreSQL: their events travel through it (docs/scaling.md).
       */
      role: z.enum(['all', 'web', 'worker']).default('all'),
      host: text().default('0.0.0.0'),
      port: port.default(8080),
      /** Believe X-Forwarded-For (only behind a reverse proxy you control). */
      trust_proxy: z.boolean().default(false),
      /** Largest accepted request body. */
      body_limit_bytes: z.number().int().positive().default(1_048_576),
      /** Seconds a client has to send its request headers (then 408 and the connection is closed). */
      headers_timeout_seconds: z.number().positive().max(3600).default(20),
      /** Seconds a client has to send its whole request, headers and body (a trickled body is cut off). */
      request_timeout_seconds: z.number().positive().max(3600).default(60),
      /** Seconds an idle keep-alive connection stays open between requests. */
      keep_alive_timeout_seconds: z.number().positive().max(3600).default(72),
      /** Open connections one client address may hold; more are closed at once. 0 turns the cap off. */
      max_connections_per_address: z.number().int().min(0).default(256),
      /** Public base URL used in e-mails (verification links). Derived from the request when absent. */
      public_url: text().optional(),
      cors: z
        .strictObject({
          enabled: z.boolean().default(false),
          origins: z.array(text()).default([]),
        })
        .prefault({}),
    })
    .refine((server) => server.headers_timeout_seconds <= server.request_timeout_seconds, {
      message: 'must not be longer than server.request_timeout_seconds',
      path: ['headers_timeout_seconds'],
    })
    .prefault({}),
  data_dir: text().default('./data'),
  database: z
    .strictObject({
      type: z.enum(['sqlite', 'postgres']).default('sqlite'),
      /** SQLite file; defaults to <data_dir>/colophon.db. */
      path: text().optional(),
      host: text().default('localhost'),
      port: port.default(5432),
      name: text().default('colophon'),
      user: text().default('colophon'),
      password: text().optional(),
      pool_size: z.number().int().min(1).max(200).default(10),
      ssl: z.boolean().default(false),
    })
    .prefault({}),
  auth: z
    .strictObject({
      /** HS256 secret. Generated once and kept in <data_dir>/jwt-secret when absent. */
      jwt_secret: text(z.string().min(32, 'must be at least 32 characters')).optional(),
      jwt_expiry_seconds: z.number().int().positive().default(86_400),
      registration_enabled: z.boolean().default(false),
      email_verification_required: z.boolean().default(false),
      oidc: z
        .strictObject({
          providers: z
            .array(OidcProviderConfig)
            .default([])
            .refine((list) => new Set(list.map((p) => p.id)).size === list.length, 'two providers have the same id'),
        })
        .prefault({}),
      /** Header sign-in behind a trusted reverse proxy (docs/sign-in.md, "Behind an authenticating proxy"). */
      proxy: z
        .strictObject({
          enabled: z.boolean().default(false),
          /** The header the proxy sets to the signed-in username (Authelia, Authentik: `Remote-User`). */
          header: text(z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name')).default('Remote-User'),
          /** The proxy's own addresses (TCP peer, never X-Forwarded-For): addresses or CIDR ranges. */
          trusted_proxies: z
            .array(text(z.string().refine(isTrustedPeerEntry, 'an IPv4/IPv6 address or CIDR range (10.0.0.0/8)')))
            .default(['127.0.0.1/32', '::1/128']),
          /** Create an account for a username the proxy names that Colophon does not know yet. */
          provision: z.boolean().default(false),
          default_role: role.default('reader'),
        })
        .prefault({}),
    })
    .prefault({}),
  email: z
    .strictObject({
      from: text().default('Colophon <colophon@localhost>'),
      smtp: z
        .strictObject({
          host: text().optional(),
          port: port.default(587),
          secure: z.boolean().default(false),
          user: text().optional(),
          password: text().optional(),
        })
        .prefault({}),
    })
    .prefault({}),
  rate_limit: z
    .strictObject({
      enabled: z.boolean().default(true),
      anonymous: bucket(10, 50),
      authenticated: bucket(50, 200),
    })
    .prefault({}),
  api: z
    .strictObject({
      enable_api_docs: z.boolean().default(false),
      api_docs_path: text(z.string().regex(/^\/[A-Za-z0-9/_-]*$/, 'must be an absolute URL path such as /docs')).default('/docs'),
    })
    .prefault({}),
  komga_api: z
    .strictObject({
      enabled: z.boolean().default(false),
      prefix: text(z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be a single path segment')).default('komga'),
    })
    .prefault({}),
  libraries: z
    .strictObject({
      /**
       * Folders that libraries (and the admin's folder browser) must lie in; empty means any folder the server
       * can read. Set it whenever maintainers (or custom permissions) may create libraries.
       */
      allowed_roots: z
        .array(text(z.string().refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path')))
        .default([]),
    })
    .prefault({}),
  inbox: z
    .strictObject({
      /** Seconds a file in an inbox folder must keep its size and time before it is taken (a copy still being written is not). */
      quiet_seconds: z.number().min(0.05).max(3600).default(5),
      /** How often inbox folders are looked at even without file-system events (and their watch leases renewed). */
      check_seconds: z.number().min(0.1).max(3600).default(30),
      /** Where uploads wait until they are complete; empty: `<data_dir>/uploads`. */
      uploads_dir: text().default(''),
    })
    .prefault({}),
  koreader: z
    .strictObject({
      /** KOReader's progress sync server (kosync protocol). */
      enabled: z.boolean().default(true),
      /** Path it is served under; the URL to paste into KOReader is `<public url><prefix>/<api key>`. */
      prefix: text(z.string().regex(/^(\/[A-Za-z0-9_-]+)+$/, 'must be a path like /koreader')).default('/koreader'),
    })
    .prefault({}),
  kobo: z
    .strictObject({
      /** Kobo e-reader sync under `/kobo/{api key}/` (keys with the kobo-sync permission; docs/kobo.md). */
      enabled: z.boolean().default(true),
      /** Books and reading states per sync response; the device asks again for the rest. */
      sync_item_limit: z.number().int().min(1).max(1000).default(100),
    })
    .prefault({}),
  scanner: z
    .strictObject({
      /** Worker threads analysing files; 0 means one per CPU core. */
      workers: z.number().int().min(0).max(64).default(0),
      /** Seconds one file may take to analyse before its worker is killed. */
      file_timeout_seconds: z.number().positive().default(120),
      /**
       * Folder watching: how often each library's folder, configuration and watcher lease are looked at again
       * (a folder gone pauses its watch within this time). The lease lasts three times as long.
       */
      watch_check_ms: z.number().int().min(50).max(600_000).default(10_000),
      /** Folder watching for the libraries that ask for it (`scanning_config.watch`); false turns it off for all. */
      watch: z.boolean().default(true),
    })
    .prefault({}),
  tasks: z
    .strictObject({
      /** Tasks run at once by this process. */
      concurrency: z.number().int().min(1).max(16).default(2),
      poll_interval_ms: z.number().int().min(10).default(1000),
    })
    .prefault({}),
  thumbnails: z
    .strictObject({
      width: z.number().int().min(16).max(4000).default(400),
      format: z.enum(['webp', 'jpeg', 'png']).default('webp'),
      /** Make covers in the background after a scan adds or changes books (a `generate_thumbnails` task). */
      pregenerate: z.boolean().default(true),
    })
    .prefault({}),
  cache: z
    .strictObject({
      /**
       * Megabytes of resized pages kept under <data_dir>/cache/derived; the least recently used go first.
       * Covers are not counted: there is one pair per book, and the orphaned-thumbnails cleanup bounds them.
       */
      derived_max_mb: z.number().positive().max(1_048_576).default(512),
      /** Zip-based books (CBZ, EPUB) kept open between page requests. */
      open_books: z.number().int().min(1).max(1024).default(16),
    })
    .prefault({}),
  events: z
    .strictObject({
      /** Seconds between `: keep-alive` comments on every SSE connection. */
      keepalive_seconds: z.number().positive().max(3600).default(15),
    })
    .prefault({}),
  health: z
    .strictObject({
      /** `/health` reports `degraded` when data_dir's (or the SQLite file's) volume has less free space. */
      min_free_disk_mb: z.number().min(0).default(50),
    })
    .prefault({}),
  metadata: z
    .strictObject({
      /**
       * A match at or above this score, with the runner-up at least 0.1 lower, is applied without asking (the
       * administrator's setting `metadata_auto_threshold` starts from it).
       */
      auto_threshold: z.number().min(0.5).max(1).default(0.9),
      /** Hours the online databases' answers are kept: the same identification again sends nothing. */
      cache_ttl_hours: z
        .number()
        .positive()
        .max(24 * 365)
        .default(168),
      /**
       * Encrypts the providers' keys stored in the database (any text, 32 characters or more). Generated once and kept in
       * <data_dir>/metadata-secret when absent; instances sharing a database must share it.
       */
      secret: text().optional(),
      /** Seconds a provider has to answer one request. */
      timeout_seconds: z.number().positive().max(120).default(15),
      providers: z
        .strictObject({
          anilist: provider('https://graphql.anilist.co'),
          mangadex: provider('https://api.mangadex.org'),
          mangaupdates: provider('https://api.mangaupdates.com/v1'),
          openlibrary: provider('https://openlibrary.org'),
          comicvine: provider('https://comicvine.gamespot.com/api'),
          metron: provider('https://metron.cloud/api'),
        })
        .prefault({}),
    })
    .prefault({}),
  logging: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      /**
       * One info line per request (method, URL, status, time). Off by default: a reader turning pages makes
       * dozens of requests a second, and two log lines each were a large share of a page's cost.
       */
      access_log: z.boolean().default(false),
      /** Requests slower than this are logged at warn whatever `access_log` says. */
      slow_request_ms: z.number().int().min(0).default(1000),
    })
    .prefault({}),
});

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
