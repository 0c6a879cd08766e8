import type { FastifyRequest } from 'fastify';
import { trustedPeers } from '../../config/trusted-peers.js';
import type { Credentials } from '../auth/resolve-caller.js';

export interface ProxyAuthConfig {
  enabled: boolean;
  header: string;
  trusted_proxies: string[];
  provision: boolean;
  default_role: 'admin' | 'maintainer' | 'reader';
}

/**
 * The proxy's username header as credentials, only when proxy sign-in is on and the TCP peer (the socket's
 * address: X-Forwarded-For is whatever the client wrote) is a configured proxy. From any other address the
 * header is ignored as if absent: a client cannot tell it was even looked at.
 */
export function proxyCredentials(config: ProxyAuthConfig): ((request: FastifyRequest) => Credentials | undefined) | undefined {
  if (!config.enabled) return undefined;
  const trusted = trustedPeers(config.trusted_proxies);
  const header = config.header.toLowerCase();
  return (request) => {
    if (!trusted(request.socket.remoteAddress)) return undefined;
    const raw = request.headers[header];
    const username = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    return username ? { kind: 'proxy', username } : undefined;
  };
}
