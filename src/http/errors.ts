import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/unavailable.js';
import { isDiskFullError } from '../db/disk-full.js';
import type { Language } from '../i18n/languages.js';
import { requestLanguage } from '../i18n/request.js';
import { localize, phrase, textIn } from '../i18n/messages.js';

/** The one error body of the API: `{error, message, details}`. */
export const ErrorBody = z
  .object({
    error: z.string().describe('Machine-readable code, PascalCase (`NotFound`, `BadRequest`...) or `rate_limit_exceeded`.'),
    message: z.string(),
    details: z.unknown().nullable(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Throw from anywhere below a route; the error handler turns it into the error body. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
    readonly headers: Record<string, string> = {},
    /** Fields the body carries beside error/message/details (`retry_after` of a 429, per the spec's Errors). */
    readonly extraBody: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what: string, details: unknown = null) => new AppError(404, 'NotFound', `${what} not found`, details);
export const badRequest = (message: string, details: unknown = null) => new AppError(400, 'BadRequest', message, details);
export const conflict = (message: string, details: unknown = null) => new AppError(409, 'Conflict', message, details);
export const forbidden = (message: string, details: unknown = null) => new AppError(403, 'Forbidden', message, details);

const DISK_FULL_MESSAGE = phrase(
  'The server is out of disk space, so the change was not saved. Reading still works; try again once space has been freed.',
);

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  414: 'URITooLong',
  415: 'UnsupportedMediaType',
  416: 'RangeNotSatisfiable',
  431: 'RequestHeaderFieldsTooLarge',
  429: 'rate_limit_exceeded',
  507: 'InsufficientStorage',
  503: 'ServiceUnavailable',
};

export function codeForStatus(status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'InternalServerError' : 'BadRequest');
}

export function errorBody(code: string, message: string, details: unknown = null): ErrorBody {
  return { error: code, message, details: details ?? null };
}

/**
 * Errors the router raises before any route or hook runs (a URL that does not decode, a path parameter over
 * the length limit): Fastify would answer them with its own body; they get the API's.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? phrase('The URL is not valid (a malformed percent-encoding?)')
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? phrase('A path segment of the URL is too long')
        : error.message;
  void reply.code(status).send(errorBody(codeForStatus(status), localize(requestLanguage(request), message)));
}

/**
 * A validation failure in the caller's language: zod's own messages through zod's locale of that language; a
 * message the schema itself gives (a refinement's) through the server catalogue.
 */
function validationMessage(language: Language, code: string, params: Record<string, unknown>, message: string): string {
  if (language === 'en') return message;
  const issue = { ...params, code, message, path: [] } as unknown as z.core.$ZodRawIssue;
  const english = messageOf(z.locales.en().localeError, issue);
  if (english !== message) return localize(language, message);
  return messageOf(ZOD_LOCALES[language]().localeError, issue) ?? message;
}

const ZOD_LOCALES: Record<Exclude<Language, 'en'>, () => { localeError: z.core.$ZodErrorMap }> = {
  fr: z.locales.fr,
  de: z.locales.de,
  es: z.locales.es,
  it: z.locales.it,
  'pt-BR': z.locales.ptBR,
  nl: z.locales.nl,
  pl: z.locales.pl,
  ja: z.locales.ja,
  'zh-Hans': z.locales.zhCN,
  ko: z.locales.ko,
  ar: z.locales.ar,
};

/** The refused value itself (zod leaves it out of the issue), so zod's message for it can be said again in another language. */
function valueAt(request: FastifyRequest, context: string | undefined, instancePath: string): unknown {
  const part = { body: request.body, querystring: request.query, params: request.params, headers: request.headers }[context ?? 'body'];
  return instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (value, key) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined),
      part,
    );
}

function messageOf(map: z.core.$ZodErrorMap, issue: z.core.$ZodRawIssue): string | undefined {
  const said = map(issue);
  return typeof said === 'string' ? said : said?.message;
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a NUL byte in a header, a bad request line, both
 * Content-Length and Transfer-Encoding, headers over the size limit, a request not finished in time): answered
 * as Fastify's own handler would, but with the API's error body in place of Fastify's `{statusCode}` one; then
 * the connection is closed.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are too large']
        : [400, 'The request is not valid HTTP'];
  this.log.debug({ err }, 'malformed HTTP request');
  if (socket.writable) {
    const body = JSON.stringify(errorBody(codeForStatus(status), message, { reason: err.code ?? null }));
    const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    // A response to HEAD has the headers a GET would get and no body: a client reading one would take the
    // body's bytes for the next response.
    socket.write(isHeadRequest(err) ? head : head + body);
  }
  socket.destroy(err);
}

/** Whether the refused request was a HEAD, from the bytes Node's parser had received (`rawPacket`). */
function isHeadRequest(err: NodeJS.ErrnoException): boolean {
  const raw = (err as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
}

export interface ErrorHandlingHooks {
  /** Told of every write refused for lack of disk space (the health check reports it). */
  onDiskFull?: (err: unknown) => void;
  /**
   * Told of every request answered 503 because the database is unreachable: an outage is logged when it
   * starts and ends, not once per request (db/outage-reporter.ts). Without it, each is logged.
   */
  onDatabaseUnavailable?: (err: unknown) => void;
}

/** Maps every error (ours, zod's, Fastify's) to the error body; anything unexpected is a logged 500. */
export function registerErrorHandling(app: FastifyInstance, hooks: ErrorHandlingHooks = {}): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    const language = requestLanguage(request);
    if (err instanceof AppError) {
      return reply
        .code(err.statusCode)
        .headers(err.headers)
        .send({ ...errorBody(err.code, localize(language, err.message), err.details), ...err.extraBody });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const details = err.validation.map((v) => ({
        location: err.validationContext ?? 'request',
        field: fieldOf(v.instancePath, v.params),
        message: validationMessage(
          language,
          v.keyword,
          { ...v.params, input: valueAt(request, err.validationContext, v.instancePath) },
          v.message ?? 'invalid value',
        ),
      }));
      const first = details[0];
      const summary = !first
        ? textIn(language, 'Invalid request')
        : first.field
          ? textIn(language, 'Invalid request: {0} field "{1}": {2}', [first.location, first.field, first.message])
          : textIn(language, 'Invalid request: {0}: {1}', [first.location, first.message]);
      return reply.code(400).send(errorBody('BadRequest', summary, details));
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err, issues: err.cause.issues }, 'response did not match its schema');
      return reply.code(500).send(errorBody('InternalServerError', textIn(language, 'The server produced an invalid response')));
    }
    const fastifyErr = err as FastifyError;
    const status = typeof fastifyErr.statusCode === 'number' ? fastifyErr.statusCode : 500;
    if (status >= 400 && status < 500) {
      const message =
        fastifyErr.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
          ? phrase('Malformed JSON in request body')
          : fastifyErr.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? phrase('Request body is too large')
            : err.message;
      return reply.code(status).send(errorBody(codeForStatus(status), localize(language, message)));
    }
    if (isDatabaseUnavailable(err)) {
      // Not a bug of the request: the database is down, restarting or dropped the connection; the pool reconnects.
      if (hooks.onDatabaseUnavailable) hooks.onDatabaseUnavailable(err);
      else request.log.warn({ err }, 'database unavailable');
      return reply
        .code(503)
        .header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
        .send(
          errorBody('ServiceUnavailable', textIn(language, 'The database is unreachable right now; try again shortly'), {
            retry_after: DATABASE_RETRY_AFTER_SECONDS,
          }),
        );
    }
    if (isDiskFullError(err)) {
      // Not a bug: the disk is full. Reads keep working; the client may retry once space is freed.
      request.log.error({ err }, 'write refused: out of disk space');
      hooks.onDiskFull?.(err);
      return reply.code(507).send(errorBody('InsufficientStorage', localize(language, DISK_FULL_MESSAGE)));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send(errorBody('InternalServerError', textIn(language, 'An unexpected error occurred')));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    reply.code(404).send(errorBody('NotFound', textIn(requestLanguage(request), 'No route for {0} {1}', [request.method, path])));
  });
}

function fieldOf(instancePath: string, params: Record<string, unknown>): string {
  const fromPath = instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = params.missingProperty;
  if (typeof missing === 'string') return fromPath ? `${fromPath}.${missing}` : missing;
  return fromPath;
}
