import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Secrets kept in the database (a provider's key or token), encrypted with AES-256-GCM under a key that is not in
 * the database: a copy of the database alone gives none of them away. Stored as `v1.<iv>.<tag>.<ciphertext>`
 * (base64url).
 */
export class SecretBox {
  private readonly key: Buffer;

  /** `secret`: any text of 32 characters or more; the key is its SHA-256. */
  constructor(secret: string) {
    if (secret.length < 32) throw new Error('The secret that encrypts stored keys must have at least 32 characters');
    this.key = createHash('sha256').update(secret).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** The plain text, or null when it was sealed under another key (or altered). */
  open(sealed: string): string | null {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

/**
 * The configured secret, or one generated on first start and kept in `<dir>/<name>` (mode 0600), so that it
 * survives restarts and instances sharing the folder agree. Never logged.
 */
export function secretInFolder(configured: string | undefined, dir: string, name: string): string {
  if (configured) return configured;
  const file = path.join(path.resolve(dir), name);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start: generate below
  }
  const secret = randomBytes(48).toString('base64url');
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    // `wx` fails if another instance wrote it first; then that one wins.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    return readFileSync(file, 'utf8').trim();
  }
}
