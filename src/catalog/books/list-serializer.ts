import type { FastifyRouteSchemaDef, FastifySerializerCompiler } from 'fastify/types/schema.js';
import { serializerCompiler } from 'fastify-type-provider-zod';

/**
 * Response serializer of the big list routes (pages of series and books). The default one encodes the whole
 * page through its zod schema before JSON.stringify; for 50 rich rows that check costs about twice the
 * stringify itself, on every request. These responses are built by our own typed view functions (object
 * literals checked by TypeScript against the schema, no extra keys), so production sends them with
 * JSON.stringify alone: the same bytes. Under the test runner the zod check still runs, so the suite keeps
 * proving that the views match their schemas.
 */
export function listSerializerCompiler<T>(route: FastifyRouteSchemaDef<T>): (data: unknown) => string {
  if (process.env.VITEST) return (serializerCompiler as unknown as FastifySerializerCompiler<T>)(route);
  return (data) => JSON.stringify(data);
}
