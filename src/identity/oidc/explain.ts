import * as client from 'openid-client';

/**
 * What went wrong with a provider, in words a person can act on (the login page and "Test connection" show them).
 * openid-client reports failures as coded errors whose `cause` carries the detail; network failures are fetch's
 * TypeError with the system error as cause.
 */
/** The OAuth error code of a token-endpoint refusal, in its JSON body or its WWW-Authenticate challenge (a 401). */
export function oauthErrorOf(err: unknown): string | undefined {
  if (err instanceof client.ResponseBodyError) return err.error;
  if (err instanceof client.WWWAuthenticateChallengeError) {
    const error = err.cause.find((c) => typeof c.parameters.error === 'string')?.parameters.error;
    return error ?? (err.status === 401 ? 'invalid_client' : undefined);
  }
  return undefined;
}

export function explainProviderError(err: unknown, provider: { name: string; issuer: string }): string {
  const name = provider.name;
  const oauthError = oauthErrorOf(err);
  if (oauthError === 'invalid_client')
    return `${name} refused Colophon's client ID or client secret (invalid_client): check both against the provider's settings for this application.`;
  if (err instanceof client.AuthorizationResponseError) {
    const detail = err.error_description ? `: ${err.error_description}` : '';
    if (err.error === 'access_denied') return `${name} did not allow the sign-in${detail}.`;
    return `${name} refused the sign-in (${err.error}${detail}).`;
  }
  if (err instanceof client.ResponseBodyError) {
    if (err.error === 'invalid_grant')
      return `${name} refused the sign-in code (invalid_grant): it was already used or has expired, or the redirect URI registered at the provider differs. Try again.`;
    return `${name} answered with an error (${err.error}${err.error_description ? `: ${err.error_description}` : ''}).`;
  }
  const chain = causes(err);
  const network = chain.find(
    (e) => typeof (e as unknown as { code?: unknown }).code === 'string' && /^E[A-Z]+$/.test((e as unknown as { code: string }).code),
  );
  if (network)
    return `Could not reach ${name} at ${provider.issuer} (${(network as unknown as { code: string }).code}). Check that the provider is running and that this server can reach it.`;
  if (chain.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError'))
    return `${name} at ${provider.issuer} did not answer in time. Check that the provider is running and that this server can reach it.`;
  if (chain.some((e) => e instanceof TypeError && e.message === 'fetch failed'))
    return `Could not reach ${name} at ${provider.issuer}. Check that the provider is running and that this server can reach it.`;

  const coded = err instanceof client.ClientError ? err : undefined;
  switch (coded?.code) {
    case 'OAUTH_HTTP_REQUEST_FORBIDDEN':
      return `${name}'s address is http://, which Colophon refuses unless the provider is marked "allow http" (a provider on your own network).`;
    case 'OAUTH_RESPONSE_IS_NOT_CONFORM': {
      const status = responseStatus(coded);
      return `No OpenID Connect discovery document at ${discoveryUrl(provider.issuer)}${status ? ` (HTTP ${status})` : ''}: check the issuer URL (it is usually the address the provider shows as "issuer" or "OpenID configuration", without /.well-known/...).`;
    }
    case 'OAUTH_RESPONSE_IS_NOT_JSON':
      return `${discoveryUrl(provider.issuer)} is not an OpenID Connect discovery document (not JSON): check the issuer URL.`;
    case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED': {
      const actual = findBody(coded)?.issuer;
      return `The issuer URL does not match what the provider calls itself${typeof actual === 'string' ? ` ("${actual}")` : ''}: use exactly that URL, trailing slash included.`;
    }
    case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED': {
      const claim = findClaim(coded);
      if (claim === 'nonce') return `${name}'s sign-in token does not belong to this sign-in attempt (wrong nonce). Start again.`;
      if (claim === 'iss') return `${name}'s sign-in token was issued by someone else (wrong issuer), so it was refused.`;
      if (claim === 'aud' || claim === 'azp')
        return `${name}'s sign-in token was made for another application (wrong audience), so it was refused.`;
      return `${name}'s sign-in token has an unexpected ${claim ?? 'claim'}, so it was refused.`;
    }
    case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
      return `${name}'s sign-in token has expired or is not valid yet. If this repeats, check the clocks of this server and of the provider.`;
    case 'OAUTH_KEY_SELECTION_FAILED':
    case 'OAUTH_INVALID_RESPONSE':
    case 'OAUTH_PARSE_ERROR':
      return `${name}'s sign-in token could not be verified (${coded.message}), so it was refused.`;
  }
  if (chain.some((e) => /signature verification failed/i.test(e.message)))
    return `${name}'s sign-in token has an invalid signature, so it was refused.`;
  return `Sign-in with ${name} failed: ${err instanceof Error ? err.message : String(err)}.`;
}

export const discoveryUrl = (issuer: string): string => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

function causes(err: unknown): Error[] {
  const out: Error[] = [];
  let current: unknown = err;
  while (current instanceof Error && out.length < 8) {
    out.push(current);
    current = current.cause;
  }
  if (current && typeof current === 'object' && 'code' in current) out.push(Object.assign(new Error(String(current.code)), current));
  return out;
}

function responseStatus(err: Error): number | undefined {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof Response) return e.status;
    if (!(e instanceof Error)) return undefined;
  }
  return undefined;
}

function findBody(err: Error): Record<string, unknown> | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const body = (e as { body?: unknown }).body;
    if (body && typeof body === 'object') return body as Record<string, unknown>;
  }
  return undefined;
}

function findClaim(err: Error): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const claim = (e as { claim?: unknown }).claim;
    if (typeof claim === 'string') return claim;
  }
  return undefined;
}
