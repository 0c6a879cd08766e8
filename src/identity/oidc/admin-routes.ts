import { z } from 'zod';
import { badRequest } from '../../http/errors.js';
import type { App } from '../../http/types.js';
import { testConnection } from './connection-test.js';
import { AdminProviderInput, type Provider, type ProviderRegistry } from './providers.js';
import { baseUrlOf, ProviderIdParams, redirectUriFor } from './routes.js';

const ProviderView = z
  .object({
    id: z.string(),
    name: z.string(),
    issuer: z.string(),
    client_id: z.string(),
    client_secret_set: z.boolean().describe('Whether a client secret is set (it is never shown).'),
    scopes: z.array(z.string()),
    response_mode: z.enum(['query', 'form_post']),
    provision: z.boolean(),
    default_role: z.enum(['admin', 'maintainer', 'reader']),
    match_email: z.boolean(),
    groups_claim: z.string().nullable(),
    role_map: z.record(z.string(), z.enum(['admin', 'maintainer', 'reader'])),
    library_map: z.record(z.string(), z.array(z.string())),
    allow_http: z.boolean(),
    enabled: z.boolean().describe('Offered on the sign-in page and usable. A provider added here starts disabled.'),
    source: z.enum(['config', 'admin']).describe('`config`: set in the configuration file, read-only here.'),
    redirect_uri: z.string().describe('The exact redirect URI to register at the provider.'),
    post_logout_redirect_uri: z.string().describe('The address to register for sign-out (RP-initiated logout).'),
  })
  .meta({ id: 'OidcProvider' });

const Role = z.enum(['admin', 'maintainer', 'reader']);
/** The config file's provider fields (config/schema.ts checks them again), as the API documents them. */
const ProviderFields = {
  name: z.string().trim().min(1).max(60).describe('Shown on the button: "Sign in with <name>".'),
  issuer: z.url().describe('The issuer URL; https:// unless allow_http.'),
  client_id: z.string().trim().min(1).max(500),
  client_secret: z.string().min(1).max(2000).optional().describe('Never shown again; absent for a public client (PKCE only).'),
  scopes: z.array(z.string().min(1).max(100)).max(20).optional().describe('Default: openid profile email.'),
  response_mode: z.enum(['query', 'form_post']).optional().describe('Default: query.'),
  provision: z.boolean().optional().describe('Create an account for someone who has none yet (default false).'),
  default_role: Role.optional(),
  match_email: z.boolean().optional().describe("Link an existing account by the provider's verified e-mail address (default false)."),
  groups_claim: z.string().min(1).max(100).optional(),
  role_map: z.record(z.string().max(200), Role).optional(),
  library_map: z
    .record(z.string().max(200), z.array(z.string().min(1).max(200)).max(1000))
    .optional()
    .describe(
      "Group → the libraries its members see (library names or ids; `*` for every library), applied at every sign-in: the union of the groups' libraries, none when no group is mapped. Empty: Colophon's own library access stays as set.",
    ),
  allow_http: z.boolean().optional(),
  enabled: z
    .boolean()
    .optional()
    .describe(
      'Offered on the sign-in page and usable. A new provider is off until enabled explicitly (default false), so a provider is tested before anyone can meet it; a change without it keeps the current value.',
    ),
};
const ProviderInput = z
  .object({ id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, - and _ (at most 40)'), ...ProviderFields })
  .describe('A sign-in provider (OpenID Connect).');
const ProviderUpdate = z.object(ProviderFields).describe('The whole provider; an absent client_secret keeps the current one.');

/** Checked as the config file is (https unless allow_http), with its error in the API's words. */
function settingsFrom(input: unknown) {
  const parsed = AdminProviderInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(
      `${issue?.path.join('.') ?? 'provider'}: ${issue?.message ?? 'invalid'}`,
      parsed.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
    );
  }
  return parsed.data;
}

const ConnectionReport = z
  .object({
    ok: z.boolean(),
    checks: z.array(z.object({ name: z.enum(['discovery', 'keys', 'client']), ok: z.boolean(), message: z.string() })),
  })
  .meta({ id: 'OidcConnectionReport' });

export function registerOidcAdminRoutes(app: App, registry: ProviderRegistry, publicUrl: string | undefined): void {
  const admin = { permission: 'system-admin' };
  const view = (p: Provider, base: string) => ({
    id: p.id,
    name: p.name,
    issuer: p.issuer,
    client_id: p.client_id,
    client_secret_set: Boolean(p.client_secret ?? p.client_secret_file),
    scopes: p.scopes,
    response_mode: p.response_mode,
    provision: p.provision,
    default_role: p.default_role,
    match_email: p.match_email,
    groups_claim: p.groups_claim ?? null,
    role_map: p.role_map,
    library_map: p.library_map,
    allow_http: p.allow_http,
    enabled: p.enabled,
    source: p.source,
    redirect_uri: redirectUriFor(base, p.id),
    post_logout_redirect_uri: `${base}/sign-in`,
  });

  app.route({
    method: 'GET',
    url: '/admin/oidc/providers',
    config: admin,
    schema: {
      summary: 'Sign-in providers (OpenID Connect), with the redirect URI to register',
      description: 'The redirect URI is built from `server.public_url`, or from the address of this request when it is not set.',
      tags: ['settings'],
      response: { 200: z.array(ProviderView) },
    },
    handler: async (req) => (await registry.list()).map((p) => view(p, baseUrlOf(req, publicUrl))),
  });

  app.route({
    method: 'POST',
    url: '/admin/oidc/providers',
    config: admin,
    schema: {
      summary: 'Add a sign-in provider (applies at once, without a restart)',
      tags: ['settings'],
      body: ProviderInput,
      response: { 201: ProviderView },
    },
    handler: async (req, reply) => {
      const settings = settingsFrom({ ...req.body, enabled: req.body.enabled ?? false });
      return reply.code(201).send(view(await registry.add(settings), baseUrlOf(req, publicUrl)));
    },
  });

  app.route({
    method: 'PUT',
    url: '/admin/oidc/providers/:id',
    config: admin,
    schema: {
      summary: 'Change a sign-in provider added in Administration',
      description: 'Providers of the configuration file are read-only (409).',
      tags: ['settings'],
      params: ProviderIdParams,
      body: ProviderUpdate,
      response: { 200: ProviderView },
    },
    handler: async (req) => {
      const current = await registry.get(req.params.id);
      const settings = settingsFrom({
        ...req.body,
        id: current.id,
        client_secret: req.body.client_secret ?? current.client_secret,
        enabled: req.body.enabled ?? current.enabled,
      });
      return view(await registry.replace(current.id, settings), baseUrlOf(req, publicUrl));
    },
  });

  app.route({
    method: 'DELETE',
    url: '/admin/oidc/providers/:id',
    config: admin,
    schema: {
      summary: 'Remove a sign-in provider added in Administration (and its account links)',
      tags: ['settings'],
      params: ProviderIdParams,
    },
    handler: async (req, reply) => {
      await registry.remove(req.params.id);
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'POST',
    url: '/admin/oidc/providers/test',
    config: admin,
    schema: {
      summary: 'Test connection before saving: the same checks for settings not saved yet',
      description:
        'Discovery, signing keys and client credentials of the provider as given, saving nothing. When `id` names a provider ' +
        'already added and `client_secret` is absent, its saved secret is used, so an edit can be tested before it is saved.',
      tags: ['settings'],
      body: ProviderInput,
      response: { 200: ConnectionReport },
    },
    handler: async (req) => {
      const saved = await registry.get(req.body.id).catch(() => undefined);
      const settings = settingsFrom({ ...req.body, client_secret: req.body.client_secret ?? saved?.client_secret });
      const checks = await testConnection(settings, redirectUriFor(baseUrlOf(req, publicUrl), settings.id));
      return { ok: checks.every((c) => c.ok) && checks.length === 3, checks };
    },
  });

  app.route({
    method: 'POST',
    url: '/admin/oidc/providers/:id/test',
    config: admin,
    schema: {
      summary: 'Test connection: discovery, signing keys and client credentials, explained in words',
      tags: ['settings'],
      params: ProviderIdParams,
      response: { 200: ConnectionReport },
    },
    handler: async (req) => {
      const provider = await registry.get(req.params.id);
      const checks = await testConnection(provider, redirectUriFor(baseUrlOf(req, publicUrl), provider.id));
      return { ok: checks.every((c) => c.ok) && checks.length === 3, checks };
    },
  });
}
