import type { FastifyRequest } from 'fastify';

/**
 * The origin clients reach the server by, for links that must be absolute: `server.public_url` when set, else
 * the request's scheme and host. X-Forwarded-Proto and X-Forwarded-Host count only with `server.trust_proxy`
 * (Fastify's `trustProxy` decides what `req.protocol` and `req.host` believe).
 */
export function publicBaseUrl(req: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.host}`;
}
