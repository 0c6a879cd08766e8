import { stat } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentDisposition, sendBookFile } from '../../catalog/index.js';
import type { GeneratedEpub } from '../../reading/index.js';

/** Sends an EPUB made for a Kobo (KEPUB or fixed layout); a cached file goes with its ETag and ranges like any download. */
export async function sendGeneratedEpub(
  req: FastifyRequest,
  reply: FastifyReply,
  made: GeneratedEpub,
  fileName: string,
): Promise<FastifyReply> {
  if ('data' in made)
    return reply.header('content-type', 'application/epub+zip').header('content-disposition', contentDisposition(fileName)).send(made.data);
  const file = await stat(made.path);
  return sendBookFile(req, reply, {
    absolutePath: made.path,
    size: file.size,
    mtimeMs: file.mtimeMs,
    fileName,
    etag: made.etag,
    mediaType: 'application/epub+zip',
  });
}
