import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';

export interface AccessToken {
  token: string;
  jti: string;
  expiresIn: number;
}

export interface VerifiedToken {
  userId: string;
  jti: string;
  expiresAt: Date;
  /** The user's security stamp when the token was issued ('' for tokens issued before stamps existed). */
  stamp: string;
}

/**
 * HS256 JWTs carrying sub, role, stm (the user's security stamp), jti, iat, exp. The role is informative:
 * permissions are recomputed from the database.
 */
/** Verified tokens remembered, so a client's every request does not pay the HMAC and JOSE parsing again. */
const MAX_REMEMBERED = 10_000;

export class TokenIssuer {
  private keyObject: KeyObject | undefined;
  /**
   * Token text → its verified claims. A token's signature and claims never change, so a hit is as good as a
   * verification until `exp` (checked on every hit); revocation is not cached (the caller resolver asks the
   * database each time). Insertion order is the eviction order; a hit moves the entry to the end.
   */
  private readonly verified = new Map<string, VerifiedToken>();

  /** The secret is read lazily: building the app (e.g. for `colophon openapi`) must not create files. */
  constructor(
    private readonly secret: () => string,
    private readonly expirySeconds: number,
  ) {}

  // A KeyObject made once: given raw bytes, jose would import the key again on every verification.
  private get key(): KeyObject {
    this.keyObject ??= createSecretKey(Buffer.from(this.secret(), 'utf8'));
    return this.keyObject;
  }

  async issue(userId: string, role: string, stamp: string): Promise<AccessToken> {
    const jti = randomUUID();
    const token = await new SignJWT({ role, stm: stamp })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime(`${this.expirySeconds}s`)
      .setIssuer('colophon')
      .sign(this.key);
    return { token, jti, expiresIn: this.expirySeconds };
  }

  /** The claims of a token verified before and not expired since, without a promise; undefined otherwise. */
  remembered(token: string): VerifiedToken | undefined {
    const known = this.verified.get(token);
    if (!known) return undefined;
    this.verified.delete(token);
    if (known.expiresAt.getTime() <= Date.now()) return undefined;
    this.verified.set(token, known);
    return known;
  }

  /** Returns undefined for any invalid, tampered or expired token. */
  async verify(token: string): Promise<VerifiedToken | undefined> {
    if (this.verified.has(token)) return this.remembered(token);
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: 'colophon' });
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return undefined;
      const stamp = typeof payload.stm === 'string' ? payload.stm : '';
      const result = { userId: payload.sub, jti: payload.jti, expiresAt: new Date(payload.exp * 1000), stamp };
      if (this.verified.size >= MAX_REMEMBERED) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, result);
      return result;
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return undefined;
      throw err;
    }
  }
}

export const looksLikeJwt = (value: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
