import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/** What an account of the test provider says about itself (its claims; `sub` is the map key). */
export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
  groups?: string[];
}

export interface ProviderClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
}

type SigningKey = Parameters<SignJWT['sign']>[0];

/** How the provider's next token responses are spoiled: the ID token's signature, issuer or times. */
export type Tampering = 'none' | 'signature' | 'issuer' | 'expired';

export interface TestProvider {
  issuer: string;
  accounts: Map<string, ProviderAccount>;
  tamper: Tampering;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider, the certified Node implementation) on a real HTTP port of this process.
 * Its development login form takes any known account id; consent is granted ahead (loadExistingGrant). Token
 * responses can be spoiled on the way out (`tamper`), re-signed with the provider's own key where the test needs
 * a valid signature over wrong claims.
 */
export async function startTestProvider(clients: ProviderClient[]): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, ProviderAccount>();

  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'] })),
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-provider-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    // The ID token carries the claims itself (as Authentik or Keycloak can), so no userinfo call is needed.
    conformIdTokenClaims: false,
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  });
  const handle = provider.callback();
  const state: TestProvider = {
    issuer,
    accounts,
    tamper: 'none',
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (state.tamper !== 'none' && req.method === 'POST' && req.url?.startsWith('/token'))
      spoilTokenResponse(res, state.tamper, privateKey);
    handle(req, res);
  });
  const close = state.close;
  state.close = async () => {
    server.closeAllConnections();
    await close();
  };
  return state;
}

function spoilTokenResponse(res: ServerResponse, how: Tampering, key: SigningKey): void {
  const chunks: Buffer[] = [];
  const end = res.end.bind(res) as (body?: unknown) => ServerResponse;
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) =>
    name.toLowerCase() === 'content-length' ? res : setHeader(name, value);
  res.write = ((chunk: unknown) => {
    chunks.push(Buffer.from(chunk as Buffer));
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown) => {
    if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as Buffer));
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id_token?: string };
    void (async () => {
      if (body.id_token) body.id_token = await spoil(body.id_token, how, key);
      end(JSON.stringify(body));
    })();
    return res;
  }) as ServerResponse['end'];
}

async function spoil(idToken: string, how: Tampering, key: SigningKey): Promise<string> {
  if (how === 'signature') {
    const [header, payload, signature] = idToken.split('.');
    const flipped = signature!.startsWith('A') ? `B${signature!.slice(1)}` : `A${signature!.slice(1)}`;
    return `${header}.${payload}.${flipped}`;
  }
  const claims = decodeJwt(idToken);
  const now = Math.floor(Date.now() / 1000);
  const changed = how === 'issuer' ? { ...claims, iss: 'https://someone-else.example' } : { ...claims, iat: now - 7200, exp: now - 3600 };
  return new SignJWT(changed).setProtectedHeader(decodeProtectedHeader(idToken) as { alg: string }).sign(key);
}

/** A browser's cookies for the provider (all sent back: the provider's own paths keep them apart). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** The provider's answer to Colophon: a redirect (query mode) or a form to POST (form_post mode). */
export type ProviderAnswer = { kind: 'redirect'; url: string } | { kind: 'form'; action: string; fields: Record<string, string> };

/** Signs `accountId` in at the provider from its authorization URL, as a browser would, up to its answer to Colophon. */
export async function signInAtProvider(authorizationUrl: string, accountId: string): Promise<ProviderAnswer> {
  const jar = new Jar();
  const go = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.take(response);
    return response;
  };
  let response = await go(authorizationUrl);
  for (let hops = 0; hops < 10; hops++) {
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, authorizationUrl);
      if (next.origin !== new URL(authorizationUrl).origin) return { kind: 'redirect', url: next.href };
      if (next.pathname.startsWith('/interaction/')) {
        response = await go(next.href, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ prompt: 'login', login: accountId, password: 'any' }).toString(),
        });
      } else response = await go(next.href);
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`provider answered ${response.status} without a redirect or form: ${html.slice(0, 300)}`);
    const fields: Record<string, string> = {};
    for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[match[1]!] = decodeHtml(match[2]!);
    return { kind: 'form', action: decodeHtml(action), fields };
  }
  throw new Error('too many redirects at the provider');
}

const decodeHtml = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
