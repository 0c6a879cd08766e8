import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { forbidden } from '../../http/errors.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../auth/hooks.js';
import { LoginResponse } from '../auth/schemas.js';
import { newBrowserToken, SignInProblem, type OidcService } from './service.js';

/** The browser's sign-in cookie (service.ts): HttpOnly, only sent to these routes, ten minutes. */
export const OIDC_COOKIE = 'colophon_oidc';
const COOKIE_PATH = '/api/v1/auth/oidc';
const COOKIE_MAX_AGE = 600;

export const ProviderIdParams = z.object({ id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be a provider id') });

const PublicProviders = z
  .object({
    providers: z.array(z.object({ id: z.string(), name: z.string() })),
    password_sign_in: z
      .boolean()
      .describe(
        'False when an administrator turned password sign-in off for the web app (`?local=1` still shows the form to administrators).',
      ),
  })
  .meta({ id: 'OidcPublicProviders' });

const ExchangeResponse = LoginResponse.extend({
  return_to: z.string().describe('Where the web app goes now (a path on this server).'),
  end_session_url: z
    .string()
    .nullable()
    .describe("Open it after signing out to end the provider's session too (RP-initiated logout); null when the provider offers none."),
}).meta({ id: 'OidcExchangeResponse' });

const LinkView = z
  .object({
    provider_id: z.string(),
    provider_name: z.string(),
    email: z.string().nullable().describe('The address the provider gave at the last sign-in.'),
    linked_at: z.string(),
    last_login_at: z.string().nullable(),
  })
  .meta({ id: 'OidcLink' });

export interface OidcRouteOptions {
  publicUrl: string | undefined;
  passwordSignIn: () => Promise<boolean>;
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name && value.length > 0) return value.join('=');
  }
  return undefined;
}

export const baseUrlOf = (request: FastifyRequest, publicUrl: string | undefined): string =>
  publicUrl?.replace(/\/$/, '') ?? `${request.protocol}://${request.host}`;

export const redirectUriFor = (base: string, providerId: string): string => `${base}/api/v1/auth/oidc/${providerId}/callback`;

/**
 * A path of this server, or `/` (an address elsewhere would make the sign-in an open redirect). Browsers drop tabs and line breaks from a URL and read `\` as `/`, so `/\t/evil`
 * is `//evil`, another site: a path must start with one `/` and then neither a slash, a backslash nor a control
 * character, and hold no control character anywhere, as written and once percent-decoded.
 */
export function safeReturn(value: string | undefined): string {
  if (!value) return '/';
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return '/';
  }
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  const unsafe = (text: string) => /[\u0000-\u001f\u007f]/.test(text) || !/^\/(?:$|[^/\\])/.test(text);
  return unsafe(value) || unsafe(decoded) ? '/' : value;
}

function browserToken(request: FastifyRequest, reply: FastifyReply): string {
  const token = readCookie(request, OIDC_COOKIE) ?? newBrowserToken();
  // Lax: the provider sends the browser back with a top-level navigation, which carries it.
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${OIDC_COOKIE}=${token}; Path=${COOKIE_PATH}; Max-Age=${COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax${secure}`);
  return token;
}

const backTo = (page: '/sign-in' | '/account/sign-in', problem: string) => `${page}?oidc_error=${encodeURIComponent(problem)}`;

export function registerOidcRoutes(app: App, oidc: OidcService, options: OidcRouteOptions): void {
  // The provider's form_post answer is an HTML form (application/x-www-form-urlencoded), read on these routes only.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.route({
    method: 'GET',
    url: '/auth/oidc/providers',
    config: { public: true },
    schema: {
      summary: 'Sign-in providers (OpenID Connect), for the login page',
      tags: ['auth'],
      security: [],
      response: { 200: PublicProviders },
    },
    handler: async () => ({ providers: await oidc.publicProviders(), password_sign_in: await options.passwordSignIn() }),
  });

  app.route({
    method: 'GET',
    url: '/auth/oidc/:id/start',
    config: { public: true },
    schema: {
      summary: 'Start signing in with a provider (302 to the provider)',
      description:
        'Redirects to the provider with PKCE (S256), `state` and `nonce`, and sets the short-lived `colophon_oidc` cookie that ties the sign-in to this browser. When the provider cannot be reached, redirects to the login page with `oidc_error` saying why.',
      tags: ['auth'],
      security: [],
      params: ProviderIdParams,
      querystring: z.object({ return_to: z.string().max(2000).optional().describe('A path of this server to open once signed in.') }),
    },
    handler: async (req, reply) => {
      const base = baseUrlOf(req, options.publicUrl);
      try {
        const url = await oidc.start(req.params.id, {
          browser: browserToken(req, reply),
          redirectUri: redirectUriFor(base, req.params.id),
          returnTo: safeReturn(req.query.return_to),
        });
        return reply.redirect(url, 302);
      } catch (err) {
        if (err instanceof SignInProblem) return reply.redirect(backTo('/sign-in', err.message), 302);
        throw err;
      }
    },
  });

  const CallbackParams = z
    .looseObject({
      code: z.string().max(4000).optional(),
      state: z.string().max(500).optional(),
      iss: z.string().max(2000).optional(),
      error: z.string().max(200).optional(),
      error_description: z.string().max(2000).optional(),
    })
    .describe("The provider's answer: code, state and iss, or error and error_description.");
  const paramsOf = (value: Record<string, unknown>): Record<string, string> =>
    Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const callback = async (req: FastifyRequest, reply: FastifyReply, id: string, params: Record<string, string>) => {
    const base = baseUrlOf(req, options.publicUrl);
    const browser = readCookie(req, OIDC_COOKIE);
    if (req.method === 'POST' && !browser) {
      // A cross-site POST (form_post) does not carry the SameSite=Lax cookie: come back as a top-level GET, which does.
      return reply.redirect(`${redirectUriFor(base, id)}?${new URLSearchParams(params)}`, 303);
    }
    try {
      const result = await oidc.callback(id, new URLSearchParams(params), browser, redirectUriFor(base, id));
      if (result.kind === 'linked') return reply.redirect(`/account/sign-in?oidc_linked=${encodeURIComponent(result.provider)}`, 303);
      return reply.redirect(`/sign-in?oidc_code=${encodeURIComponent(result.code)}`, 303);
    } catch (err) {
      if (err instanceof SignInProblem) return reply.redirect(backTo('/sign-in', err.message), 303);
      throw err;
    }
  };
  const callbackSchema = {
    summary: "The provider's answer (query or form_post response mode)",
    description:
      'Verifies the answer (state against this browser, code with the PKCE verifier, ID token signature, issuer, audience, nonce and times), finds, links or creates the account, and redirects to the web app with a one-time code it exchanges for its session (POST /auth/oidc/exchange). Every failure redirects to the login page with `oidc_error` in words.',
    tags: ['auth'],
    security: [],
    params: ProviderIdParams,
  };
  app.route({
    method: 'GET',
    url: '/auth/oidc/:id/callback',
    config: { public: true },
    schema: { ...callbackSchema, querystring: CallbackParams },
    handler: (req, reply) => callback(req, reply, req.params.id, paramsOf(req.query)),
  });
  app.route({
    method: 'POST',
    url: '/auth/oidc/:id/callback',
    config: { public: true },
    schema: { ...callbackSchema, body: CallbackParams },
    handler: (req, reply) => callback(req, reply, req.params.id, paramsOf(req.body)),
  });

  app.route({
    method: 'POST',
    url: '/auth/oidc/exchange',
    config: { public: true },
    schema: {
      summary: "Exchange the callback's one-time code for the web app's session",
      description:
        'The same access token as POST /auth/login, for the browser that started the sign-in (its `colophon_oidc` cookie). The code works once, for one minute; any other answer is 400 `InvalidToken`.',
      tags: ['auth'],
      security: [],
      body: z.object({ code: z.string().min(1).max(200) }),
      response: { 200: ExchangeResponse },
    },
    handler: (req) => oidc.exchange(req.body.code, readCookie(req, OIDC_COOKIE)),
  });

  app.route({
    method: 'GET',
    url: '/auth/oidc/links',
    schema: { summary: "The providers linked to the caller's account", tags: ['auth'], response: { 200: z.array(LinkView) } },
    handler: (req) => oidc.linksOf(callerOf(req).user.id),
  });

  app.route({
    method: 'POST',
    url: '/auth/oidc/:id/link',
    schema: {
      summary: "Start linking a provider to the caller's account",
      description: 'Answers the provider URL to open in this browser; the provider sends it back to /account/sign-in.',
      tags: ['auth'],
      params: ProviderIdParams,
      response: { 200: z.object({ url: z.string() }) },
    },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      // Linking lets a provider account sign in as this user: a decision of the person, never of a key.
      if (caller.apiKeyId !== null) throw forbidden('Linking a sign-in provider needs a signed-in user, not an API key');
      const base = baseUrlOf(req, options.publicUrl);
      try {
        const url = await oidc.start(req.params.id, {
          browser: browserToken(req, reply),
          redirectUri: redirectUriFor(base, req.params.id),
          returnTo: '/account/sign-in',
          linkUserId: caller.user.id,
        });
        return { url };
      } catch (err) {
        if (err instanceof SignInProblem) return { url: backTo('/account/sign-in', err.message) };
        throw err;
      }
    },
  });

  app.route({
    method: 'DELETE',
    url: '/auth/oidc/links/:id',
    schema: { summary: "Unlink a provider from the caller's account", tags: ['auth'], params: ProviderIdParams },
    handler: async (req, reply) => {
      await oidc.unlink(callerOf(req).user.id, req.params.id);
      return reply.code(204).send();
    },
  });
}
