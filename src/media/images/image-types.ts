import { extname } from 'node:path';

/** Media types of the page images we list, by extension. */
const IMAGE_TYPE_BY_EXTENSION: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.jpe': 'image/jpeg',
  '.jfif': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.avif': 'image/avif',
  '.bmp': 'image/bmp',
};

export function imageTypeFromName(name: string): string | null {
  return IMAGE_TYPE_BY_EXTENSION[extname(name).toLowerCase()] ?? null;
}

function ascii(buf: Buffer, start: number, end: number): string {
  return buf.length >= end ? buf.toString('latin1', start, end) : '';
}

/** Media type from the first bytes of an image, or null when they match none of the page formats. */
export function sniffImageType(head: Buffer): string | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (ascii(head, 0, 8) === '\x89PNG\r\n\x1a\n') return 'image/png';
  if (ascii(head, 0, 4) === 'GIF8') return 'image/gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(head, 4, 8) === 'ftyp' && ['avif', 'avis'].includes(ascii(head, 8, 12))) return 'image/avif';
  if (ascii(head, 0, 2) === 'BM' && head.length >= 26) return 'image/bmp';
  // Netpbm is no page format, but old archives carry it under a .png name; naming it stops us lying about it.
  if (/^P[1-6]\s/.test(ascii(head, 0, 3))) return 'image/x-portable-anymap';
  return null;
}

/**
 * Whether an archive entry is a page: an image, not inside `__MACOSX/` or any hidden folder, not hidden itself,
 * and not escaping the archive root (such names are never used as paths, but they are not pages either).
 */
export function isPageEntryName(name: string): boolean {
  if (name.endsWith('/') || name.startsWith('/')) return false;
  // The usual page sits at the archive root: no folders to check.
  if (!name.includes('/')) return !name.startsWith('.') && imageTypeFromName(name) !== null;
  const parts = name.split('/');
  if (parts.some((part) => part === '..' || part.startsWith('.') || part === '__MACOSX')) return false;
  return imageTypeFromName(name) !== null;
}
