import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ADMIN, adminHeaders, createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { UsersRepository } from '../../src/identity/users/repository.js';
import { resetPassword } from '../../src/identity/users/reset-password.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { signInAtProvider, startTestProvider, type ProviderAnswer, type TestProvider } from '../helpers/oidc-provider.js';

const BASE = 'http://colophon.test';
const callbackOf = (id: string) => `${BASE}/api/v1/auth/oidc/${id}/callback`;

let idp: TestProvider;
let t: TestApp;

beforeAll(async () => {
  idp = await startTestProvider([
    {
      client_id: 'colophon',
      client_secret: 'secret-1',
      redirect_uris: [callbackOf('idp')],
      post_logout_redirect_uris: [`${BASE}/sign-in`],
    },
    { client_id: 'colophon-post', client_secret: 'secret-2', redirect_uris: [callbackOf('idp-post')] },
    { client_id: 'colophon-added', client_secret: 'secret-3', redirect_uris: [callbackOf('added')] },
    { client_id: 'colophon-libs', client_secret: 'secret-4', redirect_uris: [callbackOf('libs')] },
  ]);
  t = await createTestApp({
    server: { public_url: BASE },
    auth: {
      oidc: {
        providers: [
          {
            id: 'idp',
            name: 'Household ID',
            issuer: idp.issuer,
            client_id: 'colophon',
            client_secret: 'secret-1',
            scopes: ['openid', 'email', 'profile', 'groups'],
            provision: true,
            groups_claim: 'groups',
            role_map: { 'colophon-admin': 'admin', 'colophon-maint': 'maintainer' },
            allow_http: true,
          },
          {
            id: 'idp-post',
            name: 'Household ID (form_post)',
            issuer: idp.issuer,
            client_id: 'colophon-post',
            client_secret: 'secret-2',
            response_mode: 'form_post',
            match_email: true,
            allow_http: true,
          },
          { id: 'down', name: 'Offline', issuer: 'http://127.0.0.1:9/', client_id: 'x', client_secret: 'y', allow_http: true },
        ],
      },
    },
  } as never);
  await adminHeaders(t);
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

/** A browser: its Colophon sign-in cookie. */
interface Browser {
  cookie: string;
}

async function start(providerId: string, returnTo = '/series'): Promise<{ browser: Browser; location: string }> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/auth/oidc/${providerId}/start?return_to=${encodeURIComponent(returnTo)}` });
  expect(res.statusCode).toBe(302);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  return { browser: { cookie }, location: String(res.headers.location) };
}

/** Hands the provider's answer to Colophon's callback, as the browser would; answers Colophon's redirect. */
async function deliver(answer: ProviderAnswer, browser: Browser | null): Promise<{ status: number; location: string }> {
  const headers: Record<string, string> = browser ? { cookie: browser.cookie } : {};
  const res =
    answer.kind === 'redirect'
      ? await t.app.inject({ method: 'GET', url: answer.url.replace(BASE, ''), headers })
      : await t.app.inject({
          method: 'POST',
          url: answer.action.replace(BASE, ''),
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(answer.fields).toString(),
        });
  return { status: res.statusCode, location: String(res.headers.location) };
}

const errorOf = (location: string) => new URL(location, BASE).searchParams.get('oidc_error');

async function exchange(location: string, browser: Browser) {
  const code = new URL(location, BASE).searchParams.get('oidc_code');
  expect(code, location).toBeTruthy();
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/oidc/exchange', headers: { cookie: browser.cookie }, payload: { code } });
}

/** The whole sign-in: start, the provider's login, the callback and the exchange; answers the session. */
async function signIn(providerId: string, accountId: string, returnTo?: string) {
  const { browser, location } = await start(providerId, returnTo);
  const back = await deliver(await signInAtProvider(location, accountId), browser);
  expect(back.status).toBe(303);
  expect(errorOf(back.location)).toBeNull();
  const res = await exchange(back.location, browser);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{
    access_token: string;
    user: { id: string; username: string; role: string };
    return_to: string;
    end_session_url: string | null;
  }>();
}

const me = async (token: string) =>
  (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } })).json<{
    id: string;
    role: string;
    email: string;
  }>();

describe('Sign-in with OpenID Connect: the code flow', () => {
  it('lists the providers for the login page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/providers' });
    expect(res.statusCode).toBe(200);
    expect(res.json().providers.map((p: { id: string }) => p.id)).toEqual(['idp', 'idp-post', 'down']);
    expect(res.json().password_sign_in).toBe(true);
  });

  it('returns only to a path of this server: the usual open-redirect spellings go to /', async () => {
    idp.accounts.set('rhea-sub', { email: 'rhea@home.example', email_verified: true, preferred_username: 'rhea', groups: [] });
    const hostile = [
      '//evil.example',
      '/\\evil.example',
      '/\t/evil.example',
      '/\r\n/evil.example',
      '/%09/evil.example',
      '/%0d%0a/evil.example',
      '/%2F/evil.example',
      '/%5Cevil.example',
      '/\u0000/evil.example',
      'https://evil.example/',
      'evil.example',
      ' /series',
      'javascript:alert(1)',
      '/%E0%A4%A',
    ];
    for (const value of hostile) expect((await signIn('idp', 'rhea-sub', value)).return_to, JSON.stringify(value)).toBe('/');
    for (const value of ['/', '/series/abc?sort=name', '/read/b1#page=3'])
      expect((await signIn('idp', 'rhea-sub', value)).return_to).toBe(value);
  });

  it('starts with PKCE S256, state and nonce, and signs a new person in with a provisioned account (query mode)', async () => {
    idp.accounts.set('alice-sub', { email: 'alice@home.example', email_verified: true, preferred_username: 'alice', groups: [] });
    const { location } = await start('idp');
    const url = new URL(location);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(callbackOf('idp'));

    const session = await signIn('idp', 'alice-sub');
    expect(session.user).toMatchObject({ username: 'alice', role: 'reader' });
    expect(session.return_to).toBe('/series');
    expect(session.end_session_url).toContain(`${idp.issuer}/session/end`);
    expect(await me(session.access_token)).toMatchObject({ id: session.user.id, email: 'alice@home.example' });
    // The second sign-in finds the same account by its link.
    expect((await signIn('idp', 'alice-sub')).user.id).toBe(session.user.id);
  });

  it('maps groups to roles at every sign-in', async () => {
    idp.accounts.set('gus-sub', {
      email: 'gus@home.example',
      email_verified: true,
      preferred_username: 'gus',
      groups: ['colophon-admin', 'other'],
    });
    const first = await signIn('idp', 'gus-sub');
    expect(first.user.role).toBe('admin');
    idp.accounts.set('gus-sub', { ...idp.accounts.get('gus-sub'), groups: ['colophon-maint'] });
    const second = await signIn('idp', 'gus-sub');
    expect(second.user).toMatchObject({ id: first.user.id, role: 'maintainer' });
    // The role change ended the earlier session (a new security stamp).
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${first.access_token}` } }))
        .statusCode,
    ).toBe(401);
    idp.accounts.set('gus-sub', { ...idp.accounts.get('gus-sub'), groups: [] });
    expect((await signIn('idp', 'gus-sub')).user.role).toBe('reader');
  });

  it('form_post mode links an existing account by its verified e-mail when the provider allows it', async () => {
    const bob = await createUser(t, 'reader');
    idp.accounts.set('bob-sub', { email: `${bob.username}@example.org`, email_verified: true });
    const session = await signIn('idp-post', 'bob-sub');
    expect(session.user.id).toBe(bob.id);
  });

  it('a form_post answer without the cookie (a cross-site POST) comes back as a GET, which carries it', async () => {
    idp.accounts.set('bob2-sub', { email: 'nobody@home.example', email_verified: true });
    const { browser, location } = await start('idp-post');
    const answer = await signInAtProvider(location, 'bob2-sub');
    expect(answer.kind).toBe('form');
    const back = await deliver(answer, null);
    expect(back.status).toBe(303);
    const again = new URL(back.location);
    expect(again.pathname).toBe('/api/v1/auth/oidc/idp-post/callback');
    const final = await deliver({ kind: 'redirect', url: again.href }, browser);
    // Known to nobody and this provider does not provision: refused in words.
    expect(errorOf(final.location)).toMatch(/No Colophon account is linked to this Household ID \(form_post\) account/);
  });

  it('refuses to match by e-mail when the provider may not, or when the address is not verified', async () => {
    const carol = await createUser(t, 'reader');
    idp.accounts.set('carol-sub', { email: `${carol.username}@example.org`, email_verified: true });
    const { browser, location } = await start('idp');
    const back = await deliver(await signInAtProvider(location, 'carol-sub'), browser);
    expect(errorOf(back.location)).toMatch(/already uses this e-mail address/);

    const dave = await createUser(t, 'reader');
    idp.accounts.set('dave-sub', { email: `${dave.username}@example.org`, email_verified: false });
    const second = await start('idp-post');
    const refused = await deliver(await signInAtProvider(second.location, 'dave-sub'), second.browser);
    expect(errorOf(refused.location)).toMatch(/No Colophon account is linked/);
  });
});

describe('Sign-in with OpenID Connect: what is refused', () => {
  beforeAll(() => {
    idp.accounts.set('eve-sub', { email: 'eve@home.example', email_verified: true, preferred_username: 'eve' });
  });

  for (const [tamper, words] of [
    ['signature', /invalid signature|could not be verified/],
    ['issuer', /wrong issuer/],
    ['expired', /expired/],
  ] as const) {
    it(`an ID token with a ${tamper === 'signature' ? 'tampered signature' : tamper === 'issuer' ? 'wrong issuer' : 'past expiry'}`, async () => {
      const { browser, location } = await start('idp');
      idp.tamper = tamper;
      try {
        const back = await deliver(await signInAtProvider(location, 'eve-sub'), browser);
        expect(back.status).toBe(303);
        expect(back.location).not.toContain('oidc_code');
        expect(errorOf(back.location)).toMatch(words);
      } finally {
        idp.tamper = 'none';
      }
    });
  }

  it('an ID token whose nonce is not this sign-in’s', async () => {
    const { browser, location } = await start('idp');
    await t.database.db
      .updateTable('oidc_flows')
      .set({ nonce: 'another-nonce' })
      .where('state', '=', new URL(location).searchParams.get('state')!)
      .execute();
    const back = await deliver(await signInAtProvider(location, 'eve-sub'), browser);
    expect(errorOf(back.location)).toMatch(/wrong nonce/);
  });

  it('an answer coming back to another browser, or twice', async () => {
    const { location } = await start('idp');
    const answer = await signInAtProvider(location, 'eve-sub');
    const stranger = await deliver(answer, { cookie: 'colophon_oidc=someone-else' });
    expect(errorOf(stranger.location)).toMatch(/expired or was started in another browser/);
    const { browser, location: second } = await start('idp');
    const ok = await signInAtProvider(second, 'eve-sub');
    expect(errorOf((await deliver(ok, browser)).location)).toBeNull();
    expect(errorOf((await deliver(ok, browser)).location)).toMatch(/state does not match/);
  });

  it('the one-time code works once, and only in the browser that started', async () => {
    const { browser, location } = await start('idp');
    const back = await deliver(await signInAtProvider(location, 'eve-sub'), browser);
    expect((await exchange(back.location, { cookie: 'colophon_oidc=other' })).statusCode).toBe(400);
    const again = await start('idp');
    const back2 = await deliver(await signInAtProvider(again.location, 'eve-sub'), again.browser);
    expect((await exchange(back2.location, again.browser)).statusCode).toBe(200);
    expect((await exchange(back2.location, again.browser)).statusCode).toBe(400);
  });

  it('a provider that cannot be reached sends the browser back to the login page with a message, not a 500', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/down/start' });
    expect(res.statusCode).toBe(302);
    expect(errorOf(String(res.headers.location))).toMatch(/^Could not reach Offline at http:\/\/127\.0\.0\.1:9\//);
    const unknown = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/nope/callback?state=x&code=y' });
    expect(errorOf(String(unknown.headers.location))).toMatch(/no longer exists/);
  });
});

describe('Providers in Administration, account links, and password sign-in turned off', () => {
  let admin: Headers;
  beforeAll(async () => {
    admin = await adminHeaders(t);
  });

  it('a provider is tested before it is saved, added disabled, and works once enabled; Test connection explains what is wrong', async () => {
    const settings = {
      id: 'added',
      name: 'Added later',
      issuer: idp.issuer,
      client_id: 'colophon-added',
      client_secret: 'secret-3',
      provision: true,
      allow_http: true,
    };
    const before = async (body: Record<string, unknown>) =>
      (await t.app.inject({ method: 'POST', url: '/api/v1/admin/oidc/providers/test', headers: admin, payload: body })).json();
    expect(await before(settings)).toMatchObject({ ok: true });
    const unreachable = await before({ ...settings, issuer: 'http://127.0.0.1:9/' });
    expect(unreachable.ok).toBe(false);
    expect(unreachable.checks[0]).toMatchObject({ name: 'discovery', ok: false });
    // Nothing was saved by testing.
    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/admin/oidc/providers', headers: admin });
    expect(listed.json().map((p: { id: string }) => p.id)).not.toContain('added');

    const added = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/oidc/providers',
      headers: admin,
      payload: {
        id: 'added',
        name: 'Added later',
        issuer: idp.issuer,
        client_id: 'colophon-added',
        client_secret: 'secret-3',
        provision: true,
        allow_http: true,
      },
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ source: 'admin', client_secret_set: true, redirect_uri: callbackOf('added'), enabled: false });
    expect(JSON.stringify(added.json())).not.toContain('secret-3');
    // Disabled: not on the sign-in page, and starting a sign-in with it is the 404 of a provider that does not exist.
    const publicIds = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/providers' })).json().providers.map((p: { id: string }) => p.id);
    expect(await publicIds()).not.toContain('added');
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/added/start' });
    const missing = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/no-such-provider/start' });
    expect(refused.statusCode).toBe(missing.statusCode);
    // The saved secret is used to test an edit that does not repeat it.
    expect(await before({ ...settings, client_secret: undefined })).toMatchObject({ ok: true });
    const enabled = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/oidc/providers/added',
      headers: admin,
      payload: { name: 'Added later', issuer: idp.issuer, client_id: 'colophon-added', provision: true, allow_http: true, enabled: true },
    });
    expect(enabled.json()).toMatchObject({ enabled: true });
    expect(await publicIds()).toContain('added');
    idp.accounts.set('fay-sub', { email: 'fay@home.example', email_verified: true, preferred_username: 'fay' });
    expect((await signIn('added', 'fay-sub')).user.username).toBe('fay');

    const test = async () =>
      (await t.app.inject({ method: 'POST', url: '/api/v1/admin/oidc/providers/added/test', headers: admin })).json();
    expect(await test()).toMatchObject({ ok: true });

    const edit = (changes: Record<string, unknown>) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/v1/admin/oidc/providers/added',
        headers: admin,
        payload: { name: 'Added later', issuer: idp.issuer, client_id: 'colophon-added', provision: true, allow_http: true, ...changes },
      });
    expect((await edit({ client_secret: 'not-the-secret' })).statusCode).toBe(200);
    const wrongSecret = await test();
    expect(wrongSecret.ok).toBe(false);
    expect(wrongSecret.checks.find((c: { name: string }) => c.name === 'client').message).toMatch(
      /refused the client ID "colophon-added" or its client secret/,
    );

    expect((await edit({ issuer: `${idp.issuer}/wrong` })).statusCode).toBe(200);
    const wrongIssuer = await test();
    expect(wrongIssuer.checks).toHaveLength(1);
    expect(wrongIssuer.checks[0].message).toMatch(
      /No OpenID Connect discovery document at .*\/wrong\/\.well-known\/openid-configuration \(HTTP 404\): check the issuer URL/,
    );

    expect((await edit({ issuer: 'http://127.0.0.1:9' })).statusCode).toBe(200);
    expect((await test()).checks[0].message).toMatch(/Could not reach Added later/);

    expect((await edit({ issuer: 'https://example.org', allow_http: false })).statusCode).toBe(200);
    expect((await edit({ issuer: 'http://example.org', allow_http: false })).statusCode).toBe(400);
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: '/api/v1/admin/oidc/providers/idp',
          headers: admin,
          payload: { name: 'x', issuer: idp.issuer, client_id: 'x', allow_http: true },
        })
      ).statusCode,
    ).toBe(409);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/v1/admin/oidc/providers/added', headers: admin })).statusCode).toBe(204);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/added/start' })).statusCode).toBe(404);
  });

  it('maps groups to libraries at every sign-in (by name or id, `*` for all), keeping the age and label rules', async () => {
    const library = async (name: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/libraries',
        headers: admin,
        payload: { name, path: makeTempDir('oidc-lib-') },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const kids = await library('Kids shelf');
    const grown = await library('Grown-ups');
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/oidc/providers',
      headers: admin,
      payload: {
        id: 'libs',
        name: 'Library groups',
        issuer: idp.issuer,
        client_id: 'colophon-libs',
        client_secret: 'secret-4',
        scopes: ['openid', 'email', 'profile', 'groups'],
        provision: true,
        groups_claim: 'groups',
        library_map: { kids: ['kids shelf'], adults: [grown, 'No such library'], everyone: ['*'] },
        allow_http: true,
        enabled: true,
      },
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().library_map).toEqual({ kids: ['kids shelf'], adults: [grown, 'No such library'], everyone: ['*'] });
    const accessOf = async (id: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/users/${id}`, headers: admin })).json<{
        library_access: unknown;
        age_restriction: unknown;
      }>();

    idp.accounts.set('kit-sub', { email: 'kit@home.example', email_verified: true, preferred_username: 'kit', groups: ['kids'] });
    const kit = (await signIn('libs', 'kit-sub')).user;
    expect((await accessOf(kit.id)).library_access).toEqual({ all: false, library_ids: [kids] });
    // An administrator's age rule stays through the provider's changes of libraries.
    const ageRule = { max_age: 12, include_unrated: false };
    expect(
      (await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${kit.id}`, headers: admin, payload: { age_restriction: ageRule } }))
        .statusCode,
    ).toBe(200);

    idp.accounts.set('kit-sub', { ...idp.accounts.get('kit-sub'), groups: ['kids', 'adults'] });
    const session = await signIn('libs', 'kit-sub');
    expect(await accessOf(kit.id)).toMatchObject({
      library_access: { all: false, library_ids: [kids, grown].sort() },
      age_restriction: ageRule,
    });
    const listed = await t.app.inject({
      method: 'GET',
      url: '/api/v1/libraries',
      headers: { authorization: `Bearer ${session.access_token}` },
    });
    expect(
      listed
        .json<{ data: { id: string }[] }>()
        .data.map((l) => l.id)
        .sort(),
    ).toEqual([kids, grown].sort());

    idp.accounts.set('kit-sub', { ...idp.accounts.get('kit-sub'), groups: ['everyone'] });
    await signIn('libs', 'kit-sub');
    expect((await accessOf(kit.id)).library_access).toEqual({ all: true });
    // Out of every mapped group: no library at all (the provider decides, and never widens by mistake).
    idp.accounts.set('kit-sub', { ...idp.accounts.get('kit-sub'), groups: ['unmapped'] });
    await signIn('libs', 'kit-sub');
    expect((await accessOf(kit.id)).library_access).toEqual({ all: false, library_ids: [] });
    expect((await t.app.inject({ method: 'DELETE', url: '/api/v1/admin/oidc/providers/libs', headers: admin })).statusCode).toBe(204);
  });

  it('a signed-in user links and unlinks a provider', async () => {
    const user = await createUser(t, 'reader');
    idp.accounts.set('hal-sub', { email: 'hal-elsewhere@home.example', email_verified: true });
    const linking = await t.app.inject({ method: 'POST', url: '/api/v1/auth/oidc/idp/link', headers: user.headers });
    expect(linking.statusCode).toBe(200);
    const browser = { cookie: String(linking.headers['set-cookie']).split(';')[0]! };
    const back = await deliver(await signInAtProvider(linking.json().url, 'hal-sub'), browser);
    expect(back.location).toBe('/account/sign-in?oidc_linked=Household%20ID');
    const links = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/links', headers: user.headers });
    expect(links.json()).toEqual([
      expect.objectContaining({ provider_id: 'idp', provider_name: 'Household ID', email: 'hal-elsewhere@home.example' }),
    ]);
    expect((await signIn('idp', 'hal-sub')).user.id).toBe(user.id);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/v1/auth/oidc/links/idp', headers: user.headers })).statusCode).toBe(204);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/links', headers: user.headers })).json()).toEqual([]);
  });

  it('password sign-in turned off refuses readers, never administrators nor API keys', async () => {
    const reader = await createUser(t, 'reader');
    const { key } = await createApiKey(t, reader.headers);
    const set = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/settings/password_sign_in_disabled',
      headers: admin,
      payload: { value: true },
    });
    expect(set.statusCode, set.body).toBe(200);
    try {
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/providers' })).json().password_sign_in).toBe(false);
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: reader.username, password: reader.password },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('PasswordSignInDisabled');
      const adminLogin = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: ADMIN.username, password: ADMIN.password },
      });
      expect(adminLogin.statusCode).toBe(200);
      const opds = await t.app.inject({ method: 'GET', url: '/opds/v1.2/catalog', headers: { 'x-api-key': key } });
      expect(opds.statusCode).toBe(200);
    } finally {
      await t.app.inject({ method: 'DELETE', url: '/api/v1/admin/settings/password_sign_in_disabled', headers: admin });
    }
  });

  it('the recovery command resets a password, enables the account again and ends its sessions', async () => {
    const locked = await createUser(t, 'admin');
    await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${locked.id}`, headers: admin, payload: { disabled: true } });
    const result = await resetPassword(new UsersRepository(t.database.db), locked.username, undefined);
    expect(result.password.length).toBeGreaterThanOrEqual(12);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: locked.username, password: result.password },
    });
    expect(login.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: locked.headers })).statusCode).toBe(401);
  });
});
