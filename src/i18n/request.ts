import type { FastifyRequest } from 'fastify';
import { languageOf, type Language } from './languages.js';
import { textIn } from './messages.js';

/** Read once per request: a feed says a dozen titles. */
const languages = new WeakMap<FastifyRequest, Language>();

/** The language of the person behind a request (its `Accept-Language`; the web app sends the one chosen there). */
export function requestLanguage(request: FastifyRequest): Language {
  let language = languages.get(request);
  if (language === undefined) {
    language = languageOf(request.headers['accept-language']);
    languages.set(request, language);
  }
  return language;
}

/** Words a route writes for a person (a feed's titles, an answer's message), in the request's language. */
export const say = (request: FastifyRequest, template: string, values?: readonly unknown[]): string =>
  textIn(requestLanguage(request), template, values);
