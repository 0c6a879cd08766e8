import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { MediaError, asMediaError } from '../errors.js';
import type { BookFormat } from '../types.js';

/** Extensions the scanner should pick up; 7z variants are listed so they are reported as unsupported, not ignored. */
export const BOOK_EXTENSIONS: ReadonlySet<string> = new Set(['.cbz', '.zip', '.cbr', '.rar', '.cb7', '.7z', '.epub', '.pdf']);

export function isBookFileName(name: string): boolean {
  return BOOK_EXTENSIONS.has(extname(name).toLowerCase());
}

type Container = 'zip' | 'rar4' | 'rar5' | '7z' | 'pdf';

const HEAD_BYTES = 1024;

function startsWith(buf: Buffer, bytes: readonly number[], at = 0): boolean {
  if (buf.length < at + bytes.length) return false;
  return bytes.every((b, i) => buf[at + i] === b);
}

function sniffContainer(head: Buffer): Container | null {
  // PK\3\4 local header, or PK\5\6 for an empty archive that is only an end-of-central-directory record.
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (startsWith(head, [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00])) return 'rar5';
  if (startsWith(head, [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00])) return 'rar4';
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return '7z';
  // The PDF header may follow some junk; readers accept it within the first KiB.
  if (head.subarray(0, HEAD_BYTES).includes('%PDF-')) return 'pdf';
  return null;
}

/** An EPUB's first entry is an uncompressed `mimetype` file holding `application/epub+zip`. */
function hasEpubMimetype(head: Buffer): boolean {
  if (head.length < 30) return false;
  const nameLength = head.readUInt16LE(26);
  const extraLength = head.readUInt16LE(28);
  const name = head.toString('latin1', 30, 30 + nameLength);
  if (name !== 'mimetype') return false;
  const dataStart = 30 + nameLength + extraLength;
  return head.toString('latin1', dataStart, dataStart + 20) === 'application/epub+zip';
}

const FORMAT_BY_EXTENSION: Record<string, BookFormat | '7z'> = {
  '.cbz': 'cbz',
  '.zip': 'cbz',
  '.cbr': 'cbr',
  '.rar': 'cbr',
  '.cb7': '7z',
  '.7z': '7z',
  '.epub': 'epub',
  '.pdf': 'pdf',
};

function unsupported7z(): MediaError {
  return new MediaError('unsupported', '7z archives (CB7) are not supported; repack the book as CBZ');
}

/** Decides the format from the first bytes of the file, then from its extension when the bytes say nothing. */
export function detectFormatFromBytes(head: Buffer, fileName: string): BookFormat {
  const byExtension = FORMAT_BY_EXTENSION[extname(fileName).toLowerCase()];
  switch (sniffContainer(head)) {
    case 'zip':
      return hasEpubMimetype(head) || byExtension === 'epub' ? 'epub' : 'cbz';
    case 'rar4':
    case 'rar5':
      return 'cbr';
    case '7z':
      throw unsupported7z();
    case 'pdf':
      return 'pdf';
    case null:
      break;
  }
  if (head.length === 0) throw new MediaError('corrupt', `${fileName}: empty file`);
  if (byExtension === '7z') throw unsupported7z();
  // Unknown bytes behind a known extension: let that format's reader report what is wrong with it.
  if (byExtension) return byExtension;
  throw new MediaError('unsupported', `${fileName}: not a comic archive, EPUB or PDF`);
}

export async function detectFormat(path: string): Promise<BookFormat> {
  let head: Buffer;
  try {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
      head = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw asMediaError(err, 'corrupt', path);
  }
  return detectFormatFromBytes(head, path);
}
