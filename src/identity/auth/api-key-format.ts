import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** `colophon_<8-char base62 prefix>_<40-char base62 secret>`; the prefix is the lookup id kept in plaintext. */
export const KEY_LEADING_SEGMENT = 'colophon';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX_LENGTH = 8;
const SECRET_LENGTH = 40;
const KEY_PATTERN = /^colophon_([0-9A-Za-z]{8})_([0-9A-Za-z]{32,128})$/;

function base62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += BASE62[randomInt(62)];
  return out;
}

export interface GeneratedKey {
  key: string;
  prefix: string;
  secretHash: string;
}

export function generateApiKey(): GeneratedKey {
  const prefix = base62(PREFIX_LENGTH);
  const secret = base62(SECRET_LENGTH);
  return { key: `${KEY_LEADING_SEGMENT}_${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Splits a presented key; undefined when it does not have the expected structure (rule 7). */
export function parseApiKey(value: string): { prefix: string; secret: string } | undefined {
  const m = KEY_PATTERN.exec(value);
  return m ? { prefix: m[1] as string, secret: m[2] as string } : undefined;
}

const KEY_IN_TEXT = /\b(colophon_[0-9A-Za-z]{8}_)[0-9A-Za-z]+/g;
/** A URL's pieces between its delimiters: where a credential can sit (a path segment, a query name or value). */
const URL_PIECE = /[^/?&=#;]+/g;

function decodedOrAsIs(piece: string): string {
  try {
    return decodeURIComponent(piece.replace(/\+/g, ' '));
  } catch {
    return piece;
  }
}

/**
 * Text (a URL for the log) with the secret of every API key in it hidden; the prefix, a lookup id, stays. Each
 * piece is judged as the routes read it, percent-decoded: a key spelt `colophon%5F…` authenticates, so it is
 * redacted too, and a piece holding a key is logged decoded with its secret hidden.
 */
export function redactApiKeys(text: string): string {
  return text.replace(URL_PIECE, (piece) => {
    const decoded = piece.includes('%') || piece.includes('+') ? decodedOrAsIs(piece) : piece;
    KEY_IN_TEXT.lastIndex = 0;
    return KEY_IN_TEXT.test(decoded) ? decoded.replace(KEY_IN_TEXT, '$1[redacted]') : piece;
  });
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(`${KEY_LEADING_SEGMENT}_`);
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
