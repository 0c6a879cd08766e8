import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../http/errors.js';
import { createRateLimitHook, TokenBuckets, type BucketLimits } from '../../http/rate-limit.js';
import type { App } from '../../http/types.js';
import type { AuthSettings } from './accounts.js';
import type { Caller } from '../access/caller.js';
import { holdsRule, isPermission, missingPermission, type Permission } from '../access/permissions.js';
import { isPassword, readCredentials, type CallerResolver, type Credentials } from './resolve-caller.js';

export interface AuthHookDeps {
  resolver: CallerResolver;
  settings: AuthSettings;
  isSetupRequired(): Promise<boolean>;
  /** Extra credential sources (the Komga session cookie); tried when no header credentials are present. */
  extraCredentials?: (request: FastifyRequest) => Credentials | undefined;
  /** The trusted proxy's header (proxy-auth module): tried last, so explicit credentials always win. */
  proxyCredentials?: (request: FastifyRequest) => Credentials | undefined;
}

/**
 * The web app's access token, which it also keeps in this cookie (path `/api/v1/books/`, SameSite=Strict) so a
 * plain download link lets the browser stream a file to disk. Only GET routes marked `fileCookie` read it: no
 * request that changes anything can ride on a cookie, so it opens no cross-site request forgery.
 */
export const FILE_COOKIE = 'colophon_file_token';

function fileCookieCredentials(request: FastifyRequest): Credentials | undefined {
  if (!request.routeOptions.config?.fileCookie || !request.headers.cookie || (request.method !== 'GET' && request.method !== 'HEAD'))
    return undefined;
  for (const part of request.headers.cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === FILE_COOKIE && value.length > 0) return { kind: 'bearer', value: value.join('=') };
  }
  return undefined;
}

/**
 * Only these are exempt from rate limiting (spec: `/health` and `/api/v1/events`), plus routes that opt out,
 * and only for requests that authenticate (or need no caller).
 */
const RATE_LIMIT_EXEMPT = /^\/api\/v1\/events(\/|\?|$)/;

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new AppError(401, 'Unauthorized', 'Authentication required');
  return request.caller;
}

/** `a`, or `a` or `b`: a route's permission as the docs write it. */
const anyOf = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(' or ');

export interface RouteAccess {
  method: string;
  url: string;
  /** The permission, or the permissions of which any one does; null: any authenticated caller. */
  permission: readonly string[] | null;
  public: boolean;
}

/** A request's caller as the database says now (see registerAuthHooks); undefined once its credentials are refused. */
export type CallerAgain = (request: FastifyRequest) => Promise<Caller | undefined>;

/**
 * Three onRequest steps, in this order: resolve the caller from the headers, draw from the rate-limit bucket
 * (per user when authenticated, per IP otherwise and whenever credentials fail), then enforce the route's
 * permission. Every route needs a
 * caller unless it is marked public; unknown routes fall through to the 404 handler.
 */
export function registerAuthHooks(
  app: App,
  deps: AuthHookDeps,
): { routes: RouteAccess[]; buckets: TokenBuckets; callerAgain: CallerAgain } {
  const routes: RouteAccess[] = [];
  const buckets = new TokenBuckets();
  const sweep = setInterval(() => buckets.sweep(), 30_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  app.decorateRequest('caller', null);
  app.decorateRequest('authError', null);
  app.decorateRequest('credentials', null);

  app.addHook('onRoute', (route: RouteOptions) => {
    const config = (route.config ?? {}) as { permission?: string | readonly string[]; public?: boolean };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => m === 'HEAD')) return;
    const permission = config.permission === undefined ? null : [config.permission].flat();
    for (const name of permission ?? []) if (!isPermission(name)) throw new Error(`route ${route.url} declares unknown permission ${name}`);
    if (permission?.length === 0) throw new Error(`route ${route.url} declares an empty permission list`);
    routes.push({
      method: methods.filter((m) => m !== 'HEAD').join(','),
      url: route.url,
      permission,
      public: config.public === true,
    });
    if (route.schema && !route.schema.hide) {
      const note = config.public
        ? 'No authentication required.'
        : permission
          ? `Requires permission ${anyOf(permission)}.`
          : 'Requires authentication.';
      const schema = route.schema as { description?: string };
      schema.description = schema.description ? `${schema.description}\n\n${note}` : note;
    }
  });

  const limitsFrom = (kind: 'anonymous' | 'authenticated'): BucketLimits =>
    kind === 'anonymous'
      ? { rate: deps.settings.peek('rate_limit_anonymous_rps'), burst: deps.settings.peek('rate_limit_anonymous_burst') }
      : { rate: deps.settings.peek('rate_limit_authenticated_rps'), burst: deps.settings.peek('rate_limit_authenticated_burst') };

  // Once an address has failed authentication too often (its own counter, which only failures draw from: plain
  // anonymous traffic from a NAT or a proxy must not lock its Basic readers out), its passwords are not even
  // checked: a right guess would otherwise stand out from the wrong ones (429) and keep the guessing going. A
  // pair verified before (the Basic cache) is no guess and passes. Keys and tokens are not guessable and are
  // always checked.
  const failedKey = (request: FastifyRequest) => `failed-auth:${request.ip}`;
  const guessingStopped = (request: FastifyRequest): boolean =>
    deps.settings.peek('rate_limit_enabled') && !buckets.hasToken(failedKey(request), limitsFrom('anonymous'));

  const resolveCaller = async (request: FastifyRequest, credentials: Credentials): Promise<void> => {
    try {
      if (isPassword(credentials) && guessingStopped(request)) {
        const verified = await deps.resolver.verifiedBefore(credentials);
        if (!verified) {
          request.authError = new AppError(401, 'Unauthorized', 'Too many failed requests from this address: the password was not checked');
          return;
        }
        request.caller = verified;
        return;
      }
      request.caller = await deps.resolver.resolve(credentials);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refused(request, err);
    }
  };
  const refused = (request: FastifyRequest, err: AppError): void => {
    request.authError = err;
    if (deps.settings.peek('rate_limit_enabled')) buckets.take(failedKey(request), limitsFrom('anonymous'));
  };

  // Callback-style hooks: a page turn whose caller is remembered (resolver.remembered) passes them without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    let credentials: Credentials | undefined;
    try {
      credentials =
        readCredentials(request.headers) ??
        deps.extraCredentials?.(request) ??
        fileCookieCredentials(request) ??
        deps.proxyCredentials?.(request);
    } catch (err) {
      if (!(err instanceof AppError)) return done(err as Error);
      refused(request, err);
      return done();
    }
    if (!credentials) return done();
    request.credentials = credentials;
    const remembered = deps.resolver.remembered(credentials);
    if (remembered) {
      request.caller = remembered;
      return done();
    }
    resolveCaller(request, credentials).then(() => done(), done);
  });

  const rateLimit = createRateLimitHook(buckets, {
    enabled: () => deps.settings.peek('rate_limit_enabled'),
    bucketFor: (request) => {
      const config = request.routeOptions.config;
      const exempt = config.rateLimit === false || RATE_LIMIT_EXEMPT.test(request.url);
      // An exemption serves callers who get an answer; a request whose credentials fail (or that has none
      // where a caller is needed) is a guess or a mistake, and an exempt route must not become a free
      // password oracle: it always draws from its address's bucket.
      if (exempt && !request.authError && (request.caller || config.public)) return undefined;
      return request.caller
        ? { key: `user:${request.caller.user.id}`, limits: limitsFrom('authenticated') }
        : { key: `ip:${request.ip}`, limits: limitsFrom('anonymous') };
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!deps.settings.peek('rate_limit_enabled')) return done();
    rateLimit(request, reply).then(() => done(), done);
  });

  const unauthenticated = async (request: FastifyRequest): Promise<never> => {
    if (request.authError) throw request.authError;
    throw new AppError(
      401,
      'Unauthorized',
      (await deps.isSetupRequired())
        ? 'Authentication required. No administrator exists yet: complete setup with POST /api/v1/setup/initialize.'
        : 'Authentication required.',
    );
  };
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.is404) return done();
    const config = request.routeOptions.config;
    if (config.public) return done();
    if (!request.caller) return void unauthenticated(request).catch(done);
    const permission = config.permission as Permission | readonly Permission[] | undefined;
    if (permission !== undefined && !holdsRule(request.caller.permissions, permission)) return done(missingPermission(permission));
    done();
  });

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    if (reply.statusCode === 401 && !reply.hasHeader('www-authenticate')) {
      const challenge = request.routeOptions.config?.authChallenge ?? 'bearer';
      reply.header(
        'WWW-Authenticate',
        challenge === 'basic'
          ? 'Basic realm="Colophon", charset="UTF-8"'
          : 'Bearer realm="Colophon", Basic realm="Colophon", charset="UTF-8"',
      );
    }
    done(null, payload);
  });

  const callerAgain = callerAgainWith(deps.resolver);

  return { routes, buckets, callerAgain };
}

/** The permission table for the OpenAPI description: one row per route. */
export function permissionTable(routes: RouteAccess[]): string {
  const rows = routes
    .filter((r) => r.url.startsWith('/api/'))
    .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
    .map((r) => `| ${r.method} | \`${r.url}\` | ${r.public ? 'public' : r.permission ? anyOf(r.permission) : 'any authenticated user'} |`);
  return ['## Permissions by route', '', '| Method | Path | Needs |', '|---|---|---|', ...rows].join('\n');
}

/**
 * For answers that outlive their request (event streams): the caller resolved again from the same credentials,
 * so a revoked key, a logout, a disabled or demoted user or access taken away applies to what is sent next.
 */
export function callerAgainWith(resolver: Pick<CallerResolver, 'remembered' | 'resolve'>): CallerAgain {
  return async (request) => {
    const credentials = request.credentials;
    if (!credentials) return undefined;
    try {
      return resolver.remembered(credentials) ?? (await resolver.resolve(credentials));
    } catch (err) {
      if (err instanceof AppError) return undefined;
      throw err;
    }
  };
}
