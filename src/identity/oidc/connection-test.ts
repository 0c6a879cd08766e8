import * as client from 'openid-client';
import { discover, clientSecretOf, type ProviderSettings } from './providers.js';
import { discoveryUrl, explainProviderError, oauthErrorOf } from './explain.js';

export interface ConnectionCheck {
  name: 'discovery' | 'keys' | 'client';
  ok: boolean;
  message: string;
}

/**
 * "Test connection": the discovery document (is the issuer URL right?), the signing keys (can ID tokens be
 * verified?), and the client credentials. For the last, Colophon sends the token endpoint a made-up authorization
 * code: a provider checks the client's credentials before the code, so `invalid_client` means a wrong client ID or
 * secret and `invalid_grant` (the code is unknown) means they were accepted. Nothing is signed in or changed.
 */
export async function testConnection(provider: ProviderSettings, redirectUri: string): Promise<ConnectionCheck[]> {
  const checks: ConnectionCheck[] = [];
  let config: client.Configuration;
  try {
    config = await discover(provider);
  } catch (err) {
    return [{ name: 'discovery', ok: false, message: explainProviderError(err, provider) }];
  }
  const server = config.serverMetadata();
  const notes: string[] = [];
  if (provider.response_mode === 'form_post' && server.response_modes_supported && !server.response_modes_supported.includes('form_post'))
    notes.push(' It does not list the form_post response mode: choose "query".');
  if (server.code_challenge_methods_supported && !server.code_challenge_methods_supported.includes('S256'))
    notes.push(' It does not list PKCE with S256, which Colophon uses.');
  checks.push({
    name: 'discovery',
    ok: notes.length === 0,
    message: `Found the provider at ${discoveryUrl(provider.issuer)} (issuer ${server.issuer}).${notes.join('')}`,
  });

  checks.push(await checkKeys(provider, server.jwks_uri));
  checks.push(await checkClient(provider, config, redirectUri));
  return checks;
}

async function checkKeys(provider: ProviderSettings, jwksUri: string | undefined): Promise<ConnectionCheck> {
  if (!jwksUri) return { name: 'keys', ok: false, message: 'The discovery document names no jwks_uri, so ID tokens cannot be verified.' };
  try {
    const url = new URL(jwksUri);
    if (url.protocol !== 'https:' && !provider.allow_http)
      return { name: 'keys', ok: false, message: `The signing keys are at an http:// address (${jwksUri}), which needs "allow http".` };
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000), headers: { accept: 'application/json' } });
    if (!response.ok) return { name: 'keys', ok: false, message: `The signing keys at ${jwksUri} answered HTTP ${response.status}.` };
    const body = (await response.json()) as { keys?: unknown };
    const count = Array.isArray(body.keys) ? body.keys.length : 0;
    if (count === 0)
      return { name: 'keys', ok: false, message: `The key set at ${jwksUri} holds no keys, so ID tokens cannot be verified.` };
    return { name: 'keys', ok: true, message: `Fetched ${count} signing key${count > 1 ? 's' : ''} from ${jwksUri}.` };
  } catch (err) {
    return { name: 'keys', ok: false, message: `Could not read the signing keys at ${jwksUri}: ${explainProviderError(err, provider)}` };
  }
}

async function checkClient(provider: ProviderSettings, config: client.Configuration, redirectUri: string): Promise<ConnectionCheck> {
  let secret: string | undefined;
  try {
    secret = clientSecretOf(provider);
  } catch (err) {
    return { name: 'client', ok: false, message: `Could not read the client secret file: ${(err as Error).message}` };
  }
  try {
    await client.genericGrantRequest(config, 'authorization_code', {
      code: 'colophon-connection-test',
      redirect_uri: redirectUri,
      code_verifier: client.randomPKCECodeVerifier(),
    });
    return { name: 'client', ok: false, message: 'The provider accepted a made-up sign-in code, which it should never do.' };
  } catch (err) {
    const error = oauthErrorOf(err);
    if (error) {
      if (error === 'invalid_client')
        return {
          name: 'client',
          ok: false,
          message: secret
            ? `The provider refused the client ID "${provider.client_id}" or its client secret: copy both again from the provider's settings for this application.`
            : `The provider refused the client ID "${provider.client_id}" without a secret: it is probably a confidential client, so enter its client secret.`,
        };
      if (error === 'invalid_grant')
        return { name: 'client', ok: true, message: `The provider accepted the client ID${secret ? ' and secret' : ''}.` };
      if (error === 'unauthorized_client')
        return {
          name: 'client',
          ok: false,
          message: 'The provider accepted the client but does not allow it the authorization code flow: enable it at the provider.',
        };
      return {
        name: 'client',
        ok: true,
        message: `The provider accepted the client ID${secret ? ' and secret' : ''} (it answered ${error} to the test code).`,
      };
    }
    return { name: 'client', ok: false, message: explainProviderError(err, provider) };
  }
}
