import type { FastifyReply, FastifyRequest } from 'fastify';

/** An image to send: bytes, media type and a strong validator derived from the book's content hash. */
export interface ImageResult {
  data: Buffer;
  mediaType: string;
  etag: string;
  /**
   * Gives the bytes' buffer back for reuse (PageBuffers) once nothing reads them: sendImage calls it when the answer
   * has been handed to the operating system. Whoever uses the bytes otherwise need not call it.
   */
  release?(): void;
}

/** What a conditional request learns before any file is read. */
export interface ImageLookup {
  etag: string;
  load(): Promise<ImageResult>;
}

/** Page images and covers may be kept by the client for an hour; the ETag changes with the file's content. */
export const IMAGE_CACHE_CONTROL = 'private, max-age=3600';

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Answers 304 when the client's If-None-Match holds the image's ETag, else sends the image with its validators.
 * The validators are set only once the image is there: an error from load() (a 503 to retry in a second, a
 * 404 or 413) must not be cached for an hour under the image's ETag.
 */
export async function sendImage(request: FastifyRequest, reply: FastifyReply, lookup: ImageLookup): Promise<FastifyReply> {
  const validators = { etag: lookup.etag, 'cache-control': IMAGE_CACHE_CONTROL };
  if (matches(request.headers['if-none-match'], lookup.etag)) return reply.code(304).headers(validators).send();
  const image = await lookup.load();
  // 'finish': the last bytes are with the operating system. An answer cut short never finishes, and its buffer is
  // left to the garbage collector (a write still pending might read it).
  if (image.release) reply.raw.once('finish', image.release);
  return reply.headers(validators).header('content-type', image.mediaType).send(image.data);
}
