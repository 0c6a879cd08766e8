import { createReadStream } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import type { BookFile } from './files.js';

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** Parses a single `bytes=` range; null when absent or not a single byte range (then the whole file is sent). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
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

/** Sends a book file: whole (200) or one byte range (206), with ETag and 304 on If-None-Match. */
export function sendBookFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: BookFile & { fileName: string; etag: string; mediaType: string },
): FastifyReply {
  reply
    .header('etag', file.etag)
    .header('accept-ranges', 'bytes')
    .header('content-disposition', contentDisposition(file.fileName))
    .header('content-type', file.mediaType)
    .header('cache-control', 'private, max-age=3600')
    .header('last-modified', new Date(file.mtimeMs).toUTCString());
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const range = parseRange(request.headers.range, file.size);
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
