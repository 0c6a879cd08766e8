import type { FastifyRequest } from 'fastify';
import { languageOf, type Language } from './languages.js';
import { textIn } from './messages.js';

/** The language of the person behind a request (its `Accept-Language`; the web app sends the one chosen there). */
export const requestLanguage = (request: FastifyRequest): Language => languageOf(request.headers['accept-language']);

/** Words a route writes for a person (a feed's titles, an answer's message), in the request's language. */
export const say = (request: FastifyRequest, template: string, values?: readonly unknown[]): string =>
  textIn(requestLanguage(request), template, values);
