import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

export const API_VERSION = '2.5.0';

const DESCRIPTION = `Colophon: a self-hosted library server for comics, manga and ebooks.

All routes below are relative to the server root; the REST API lives under \`/api/v1\`.

**Authentication.** JWT bearer token (\`POST /api/v1/auth/login\`), API key (\`X-API-Key\` header or
\`Authorization: Bearer <key>\`), or HTTP Basic (username:password, or \`api\`:full API key).

**Errors** always have the body \`{error, message, details}\`. \`error\` is a stable code; \`message\` is written
for a person, in the language of the request's \`Accept-Language\` when it is one of en, fr, de, es, it, pt-BR, nl,
pl, ja, zh-Hans, ko, ar (the closest: \`zh-CN\` is zh-Hans), else English; so are OPDS feed titles (which vary by it).
\`details\` keep field names and values as sent.

**Pagination.** \`page\` (1-based, default 1), \`pageSize\` (default 50, values above 500 are capped at 500;
\`page_size\` is accepted as an alias) always go in the query string, also for POST list endpoints. The
envelope is \`{data, page, pageSize, total, totalPages, links}\`; \`links.prev\` and \`links.next\` are absent at the ends.`;

export interface OpenApiOptions {
  /** Whether `app.swagger()` is wanted (`colophon openapi`, tests); the docs UI needs it too. */
  document: boolean;
  docsEnabled: boolean;
  docsPath: string;
  /** Extra text appended to the description (for example the permission table). */
  extraDescription?: () => string;
}

/** Registers the OpenAPI generator (from the same zod schemas that validate requests) and, when enabled, the docs UI. */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  // A server without the docs UI never builds the document: not loading the generator saves start time and memory.
  if (!options.document && !options.docsEnabled) return;
  // Imported here: the docs UI only when enabled (most servers never serve it).
  const { default: fastifySwagger } = await import('@fastify/swagger');
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Colophon API', version: API_VERSION, description: DESCRIPTION },
      components: {
        securitySchemes: {
          ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT or API key' },
          BasicAuth: { type: 'http', scheme: 'basic' },
        },
      },
      security: [{ ApiKeyAuth: [] }, { BearerAuth: [] }, { BasicAuth: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) => {
      const doc = jsonSchemaTransformObject(documentObject);
      const extra = options.extraDescription?.();
      if (extra && 'openapi' in doc && doc.info) doc.info.description = `${doc.info.description ?? ''}\n\n${extra}`;
      return doc;
    },
  });
  if (options.docsEnabled) {
    const { default: fastifySwaggerUi } = await import('@fastify/swagger-ui');
    // The reference is public when enabled: mark its routes so the auth hook lets browsers through.
    await app.register(async (docs) => {
      docs.addHook('onRoute', (route) => {
        route.config = { ...(route.config ?? {}), public: true };
      });
      await docs.register(fastifySwaggerUi, { routePrefix: options.docsPath });
    });
  }
}
