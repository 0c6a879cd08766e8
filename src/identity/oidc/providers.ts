import { readFileSync } from 'node:fs';
import * as client from 'openid-client';
import { z } from 'zod';
import { OidcProviderConfig } from '../../config/schema.js';
import { conflict, notFound } from '../../http/errors.js';
import { nowIso } from '../../db/ids.js';
import { parseJsonColumn, toJsonColumn } from '../../db/json-column.js';
import type { OidcRepository } from './repository.js';

export type ProviderSettings = z.output<typeof OidcProviderConfig>;

export interface Provider extends ProviderSettings {
  /** `config`: from the configuration file (read-only in Administration); `admin`: added in Administration. */
  source: 'config' | 'admin';
}

/** Seconds of clock difference tolerated between this server and the provider on the ID token's times. */
export const CLOCK_TOLERANCE_SECONDS = 60;
/** Seconds a request to a provider may take before it counts as unreachable. */
const REQUEST_TIMEOUT_SECONDS = 10;
/** Discovery documents are fetched again after this long (keys rotate; openid-client refetches JWKS on an unknown kid). */
const DISCOVERY_TTL_MS = 3_600_000;

/** The secret, from the settings or the file named; undefined for a public client (PKCE only). */
export function clientSecretOf(provider: ProviderSettings): string | undefined {
  if (provider.client_secret) return provider.client_secret;
  if (provider.client_secret_file) return readFileSync(provider.client_secret_file, 'utf8').trimEnd();
  return undefined;
}

/**
 * A client configuration from the provider's discovery document. The client authenticates as the provider
 * prefers: `client_secret_basic` (the default of the standard) unless it offers only `client_secret_post`.
 */
export async function discover(provider: ProviderSettings): Promise<client.Configuration> {
  const secret = clientSecretOf(provider);
  const metadata: Partial<client.ClientMetadata> = { client_secret: secret, [client.clockTolerance]: CLOCK_TOLERANCE_SECONDS };
  const options: client.DiscoveryRequestOptions = {
    timeout: REQUEST_TIMEOUT_SECONDS,
    execute: provider.allow_http ? [client.allowInsecureRequests] : [],
  };
  const found = await client.discovery(new URL(provider.issuer), provider.client_id, metadata, undefined, options);
  const server = found.serverMetadata();
  const methods = server.token_endpoint_auth_methods_supported;
  const auth = !secret
    ? client.None()
    : methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
      ? client.ClientSecretPost(secret)
      : client.ClientSecretBasic(secret);
  const config = new client.Configuration(server, provider.client_id, metadata, auth);
  config.timeout = REQUEST_TIMEOUT_SECONDS;
  if (provider.allow_http) client.allowInsecureRequests(config);
  // The ID token's signature is checked against the provider's keys too, not only trusted for coming over TLS.
  client.enableNonRepudiationChecks(config);
  return config;
}

/** What Administration may set: the config file's fields except the secret file (a path on the server). */
export const AdminProviderInput = OidcProviderConfig.transform(({ client_secret_file: _file, ...rest }) => rest);

/**
 * The providers of the config file and those added in Administration (read from the database on each use, so a
 * change on one instance applies on all, without a restart), and their discovery documents, cached.
 */
export class ProviderRegistry {
  private readonly discovered = new Map<string, { fingerprint: string; at: number; config: Promise<client.Configuration> }>();

  constructor(
    private readonly fromConfig: readonly ProviderSettings[],
    private readonly repo: OidcRepository,
  ) {}

  async list(): Promise<Provider[]> {
    const stored = await this.repo.storedProviders();
    const configured = new Set(this.fromConfig.map((p) => p.id));
    const admin = stored.flatMap((row): Provider[] => {
      if (configured.has(row.id)) return [];
      const parsed = OidcProviderConfig.safeParse(parseJsonColumn<unknown>(row.settings, null));
      return parsed.success ? [{ ...parsed.data, id: row.id, source: 'admin' }] : [];
    });
    return [...this.fromConfig.map((p): Provider => ({ ...p, source: 'config' })), ...admin];
  }

  async get(id: string): Promise<Provider> {
    const provider = (await this.list()).find((p) => p.id === id);
    if (!provider) throw notFound('Sign-in provider');
    return provider;
  }

  async add(settings: ProviderSettings): Promise<Provider> {
    if ((await this.list()).some((p) => p.id === settings.id)) throw conflict(`A provider with the id "${settings.id}" exists already`);
    await this.repo.insertProvider(settings.id, toJsonColumn(settings), nowIso());
    return this.get(settings.id);
  }

  async replace(id: string, settings: ProviderSettings): Promise<Provider> {
    const current = await this.get(id);
    if (current.source === 'config') throw conflict('This provider is set in the configuration file: change it there');
    await this.repo.updateProvider(id, toJsonColumn({ ...settings, id }), nowIso());
    this.discovered.delete(id);
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    const current = await this.get(id);
    if (current.source === 'config') throw conflict('This provider is set in the configuration file: remove it there');
    await this.repo.deleteProvider(id);
    this.discovered.delete(id);
  }

  /** The provider's client configuration; a failed discovery is not remembered, so the next sign-in tries again. */
  configuration(provider: ProviderSettings): Promise<client.Configuration> {
    const fingerprint = JSON.stringify(provider);
    const known = this.discovered.get(provider.id);
    if (known && known.fingerprint === fingerprint && Date.now() - known.at < DISCOVERY_TTL_MS) return known.config;
    const config = discover(provider);
    this.discovered.set(provider.id, { fingerprint, at: Date.now(), config });
    config.catch(() => {
      if (this.discovered.get(provider.id)?.config === config) this.discovered.delete(provider.id);
    });
    return config;
  }
}
