import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/connection.js';
import { UnchangedDatabaseCache } from '../db/unchanged-cache.js';
import type { App } from './types.js';

/** Answers kept (34 KB for a page of 50 series: some 4 MB at most). */
const MAX_ANSWERS = 128;
/** A larger answer is not kept. */
const MAX_ANSWER_CHARS = 256 * 1024;

/** Who is asking, as a key (user and credential), or undefined when answers to this caller are not kept. */
type CallerKey = (request: FastifyRequest) => string | undefined;

/**
 * The JSON answers of routes marked `keepWhileUnchanged` (pages of series and books, On Deck, search), kept while
 * the database is unchanged, on SQLite (UnchangedDatabaseCache: any write, by this process or another, starts
 * afresh). A client paging or polling a list got the same bytes computed again on every request: the list's rows
 * are kept already, but each answer still read the caller's counts and labels and encoded ~34 KB of JSON.
 *
 * The key is the caller's user and credential (token, key or kind), the method, the URL with its query, and the
 * body: everything such an answer depends on besides the database (who may see what is read from the database, and
 * authentication and permissions are checked before, on every request). Only 200 answers whose body is a string
 * are kept. A kept answer goes through the same `onSend` hooks (headers) as a computed one.
 *
 * Call this before the hooks that resolve the caller: the database version an answer is kept under is read as the
 * request begins, so that a write landing while the caller is resolved or the body arrives (a role or library
 * access taken away) makes the answer computed with the caller as it was unkeepable. Returns what to call once
 * those hooks are registered, with how to tell callers apart: the kept answers are sent from the last hook before
 * the handler.
 */
export function registerUnchangedAnswers(app: App, database: Database): (callerKey: CallerKey) => void {
  if (database.dialect !== 'sqlite') return () => undefined;
  const answers = new UnchangedDatabaseCache<string>(database, MAX_ANSWERS);

  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    if (request.routeOptions.config.keepWhileUnchanged === true) request.unchangedSince = answers.versionNow();
    done();
  });

  return (callerKey) => {
    const keyOf = (request: FastifyRequest): string | undefined => {
      const caller = callerKey(request);
      if (caller === undefined) return undefined;
      const body = request.body === undefined ? '' : JSON.stringify(request.body);
      return `${caller}\0${request.method}\0${request.url}\0${body}`;
    };

    app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (request.routeOptions.config.keepWhileUnchanged !== true) return done();
      const key = keyOf(request);
      if (key === undefined) return done();
      const kept = answers.peek(key);
      if (kept !== undefined) {
        void reply.type('application/json; charset=utf-8').send(kept);
        return;
      }
      request.unchangedAnswer = { key, since: request.unchangedSince };
      done();
    });

    app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
      const computed = request.unchangedAnswer;
      if (computed && reply.statusCode === 200 && typeof payload === 'string' && payload.length <= MAX_ANSWER_CHARS)
        answers.keepSince(computed.since, computed.key, payload);
      done(null, payload);
    });
  };
}
