import { createReadStream } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import type { BookFile } from './files.js';

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/**
 * Parses a single `bytes=` range; null when absent, not a single byte range, or invalid (a last position before
 * the first: RFC 9110 §14.1.1 has the header ignored then), and the whole file is sent.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] !== '' && match[2] !== '' && Number(match[2]) < Number(match[1])) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) {
    throw new AppError(
      416,
      'RangeNotSatisfiable',
      `Range ${header} is outside the file (${size} bytes)`,
      { size },
      { 'content-range': `bytes */${size}` },
    );
  }
  return { start, end };
}

/** The entity tags of an If-None-Match header, compared weakly (RFC 9110 §13.1.2): `W/` is ignored, `*` is any. */
export function noneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  if (Array.isArray(header)) return noneMatch(header.join(','), etag);
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/**
 * Whether a Range applies under If-Range (RFC 9110 §13.1.5): the validator must be the current strong ETag or the
 * exact Last-Modified date; anything else (an older version, a weak tag, garbage) gets the whole file, so a
 * resumed download never splices two versions of a file.
 */
function rangeStillValid(ifRange: string | undefined, etag: string, lastModified: string): boolean {
  if (ifRange === undefined) return true;
  const validator = ifRange.trim();
  if (validator.startsWith('"') || validator.startsWith('W/')) return validator === etag;
  const date = Date.parse(validator);
  return !Number.isNaN(date) && date === Date.parse(lastModified);
}

/** Sends a book file: whole (200) or one byte range (206), with ETag, 304 on If-None-Match and If-Range. */
export function sendBookFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: BookFile & { fileName: string; etag: string; mediaType: string },
): FastifyReply {
  const lastModified = new Date(file.mtimeMs).toUTCString();
  reply
    .header('etag', file.etag)
    .header('accept-ranges', 'bytes')
    .header('content-disposition', contentDisposition(file.fileName))
    .header('content-type', file.mediaType)
    .header('cache-control', 'private, max-age=3600')
    .header('last-modified', lastModified);
  if (noneMatch(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  const ifRangeHeader = request.headers['if-range'];
  const ifRange = Array.isArray(ifRangeHeader) ? ifRangeHeader[0] : ifRangeHeader;
  const range = rangeStillValid(ifRange, file.etag, lastModified) ? parseRange(request.headers.range, file.size) : null;
  if (!range) {
    reply.header('content-length', String(file.size));
    return reply.send(request.method === 'HEAD' ? null : createReadStream(file.absolutePath));
  }
  reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${file.size}`)
    .header('content-length', String(range.end - range.start + 1));
  return reply.send(request.method === 'HEAD' ? null : createReadStream(file.absolutePath, { start: range.start, end: range.end }));
}
