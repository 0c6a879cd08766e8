import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), except that an empty body is no body: many
 * HTTP clients send `Content-Type: application/json` on every request, including the POSTs and DELETEs that take
 * no body (mark read, logout, scan, revoke), and Komga's clients do it on purpose. A route that needs a body
 * still refuses the missing one through its schema, with a 400 that names it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    // Fastify's own parser answers through `done` and returns nothing to wait for (its type allows a promise).
    void parseJson(request, text, done);
  });
}
