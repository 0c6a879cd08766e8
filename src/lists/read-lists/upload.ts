import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../http/errors.js';

/** A form upload: the file of one field and the text fields. */
export interface Upload {
  file: { fieldName: string; fileName: string | null; data: Buffer } | null;
  fields: Record<string, string>;
}

/**
 * Reads a `multipart/form-data` request through @fastify/multipart (registered by the app with its size limits):
 * the file sent in `fileField` and the text fields, in whatever order the client sent them (`req.parts()`, as
 * `req.file()` would miss fields after the file). Anything else is a 400 that says how to send the file.
 */
export async function readUpload(req: FastifyRequest, fileField: string): Promise<Upload> {
  const hint = `send the file as multipart/form-data in the field "${fileField}"`;
  if (!req.isMultipart()) throw badRequest(`Expected a form upload: ${hint}`);
  const upload: Upload = { file: null, fields: {} };
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      if (part.fieldname === fileField && upload.file === null)
        upload.file = { fieldName: part.fieldname, fileName: part.filename || null, data };
    } else if (typeof part.value === 'string') upload.fields[part.fieldname] = part.value;
  }
  return upload;
}
