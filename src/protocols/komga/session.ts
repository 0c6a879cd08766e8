import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../identity/index.js';

/** Komga's session cookie; clients that do not keep cookies send the same value in `X-Auth-Token`. */
export const SESSION_COOKIE = 'KOMGA-SESSION';
export const SESSION_HEADER = 'x-auth-token';
/** How long a session lasts; every Basic or API-key request on the Komga API issues a fresh one. */
export const SESSION_TTL_SECONDS = 14 * 24 * 3600;

export interface KomgaSession {
  userId: string;
  /** Set when the session was opened with an API key: the key's limits (and revocation) still apply. */
  apiKeyId: string | null;
  /** Kept when the session is renewed; logging out revokes it. */
  sessionId: string;
  /** The user's security stamp when the session was opened (identity/auth/security-stamp.ts). */
  stamp: string;
  expiresAt: number;
}

/** Reads one cookie from a Cookie header (RFC 6265 `name=value; name=value`). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}

/**
 * Sessions of the Komga API as signed, expiring tokens: `v2.<payload>.<HMAC-SHA256>`, keyed from the JWT
 * secret (which every instance sharing data_dir or configuration agrees on), so any instance accepts a session
 * another one issued. Ending one is checked by the caller resolver on every request, with the user and API key:
 * a logout revokes the session id (kept in the database like a logged-out JWT), and the user's security stamp
 * in the payload must still be the user's (a password change or "sign out everywhere" ends every session).
 * Sessions of the first format (`v1`, without id or stamp, which could not be ended) are refused: the app
 * sends its credentials again and gets a new one.
 */
export class KomgaSessions {
  private keyBytes: Buffer | undefined;

  /** The secret is read lazily: building the app (e.g. for `colophon openapi`) must not touch data_dir. */
  constructor(private readonly secret: () => string) {}

  private get key(): Buffer {
    this.keyBytes ??= createHmac('sha256', this.secret()).update('colophon komga session v1').digest();
    return this.keyBytes;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  issue(caller: Caller, sessionId: string = randomUUID(), now = Date.now()): string {
    const body: { u: string; s: string; t: string; k?: string; e: number } = {
      u: caller.user.id,
      s: sessionId,
      t: caller.securityStamp,
      e: Math.floor(now / 1000) + SESSION_TTL_SECONDS,
    };
    if (caller.apiKeyId) body.k = caller.apiKeyId;
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return `v2.${payload}.${this.sign(payload)}`;
  }

  verify(token: string | undefined, now = Date.now()): KomgaSession | null {
    if (!token || token.length > 1000) return null;
    const [version, payload, signature] = token.split('.');
    if (version !== 'v2' || !payload || !signature) return null;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        u?: unknown;
        s?: unknown;
        t?: unknown;
        k?: unknown;
        e?: unknown;
      };
      if (typeof body.u !== 'string' || typeof body.s !== 'string' || typeof body.t !== 'string' || typeof body.e !== 'number') return null;
      if (body.e * 1000 <= now) return null;
      return {
        userId: body.u,
        apiKeyId: typeof body.k === 'string' ? body.k : null,
        sessionId: body.s,
        stamp: body.t,
        expiresAt: body.e * 1000,
      };
    } catch {
      return null;
    }
  }

  /** The session a request presents: the `KOMGA-SESSION` cookie, else the `X-Auth-Token` header. */
  fromRequest(request: FastifyRequest): KomgaSession | null {
    const header = request.headers[SESSION_HEADER];
    const token = readCookie(request.headers.cookie, SESSION_COOKIE) ?? (Array.isArray(header) ? header[0] : header);
    return this.verify(token);
  }

  /**
   * Sets the session cookie (and `X-Auth-Token`, as Komga does for header-based clients): a new session, or with
   * `sessionId` the renewal of that one.
   */
  attach(request: FastifyRequest, reply: FastifyReply, caller: Caller, sessionId?: string): void {
    const token = this.issue(caller, sessionId);
    const secure = request.protocol === 'https' ? '; Secure' : '';
    reply.header('set-cookie', `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${SESSION_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure}`);
    reply.header('x-auth-token', token);
  }
}
