/**
 * The `x-kobo-synctoken` Colophon sends and the device echoes on its next sync: opaque to the device, it names
 * the key and the generation of the response that carried it (protocols/kobo/devices: what the device acknowledged).
 * The state itself is in the database, so any instance answers the next request.
 */
const PREFIX = 'colophon.';

export function encodeSyncToken(apiKeyId: string, generation: number): string {
  return `${PREFIX}${Buffer.from(JSON.stringify({ k: apiKeyId, g: generation })).toString('base64url')}`;
}

/**
 * The generation the device acknowledges; null for no token, a token of another key or server (the Kobo store's,
 * after the device switched servers), or garbage: the sync then starts from scratch.
 */
export function decodeSyncToken(header: string | string[] | undefined, apiKeyId: string): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || !value.startsWith(PREFIX) || value.length > 500) return null;
  try {
    const body = JSON.parse(Buffer.from(value.slice(PREFIX.length), 'base64url').toString('utf8')) as { k?: unknown; g?: unknown };
    return body.k === apiKeyId && typeof body.g === 'number' && Number.isSafeInteger(body.g) && body.g >= 0 ? body.g : null;
  } catch {
    return null;
  }
}
