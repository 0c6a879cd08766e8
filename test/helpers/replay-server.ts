import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the replay server answers one request. */
export type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** A JSON answer with this status and body (a recorded one: test/fixtures/providers/SOURCES.md). */
export const json =
  (status: number, body: string, headers: Record<string, string> = {}): Answer =>
  (_req, res) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);

export interface ReplayServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** The requests it was sent, in order. */
  seen: IncomingMessage[];
  close(): Promise<void>;
}

/**
 * A provider as the tests see it: a server on loopback that answers with recorded responses, the given answers in
 * turn (the last one again once they run out).
 */
export async function replayServer(...answers: Answer[]): Promise<ReplayServer> {
  const seen: IncomingMessage[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    seen.push(req);
    answers[Math.min(n++, answers.length - 1)]!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed = false;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    seen,
    close: () =>
      closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            closed = true;
            server.close(() => resolve());
          }),
  };
}

/**
 * One replay server standing for several providers: the first path segment names the provider (`/mangadex/manga`),
 * and each provider's answer is chosen from the rest of the path and the query.
 */
export const routed =
  (routes: Record<string, (url: URL, req: IncomingMessage, res: ServerResponse) => void>): Answer =>
  (req, res) => {
    const url = new URL(req.url ?? '/', 'http://replay');
    const [, first = '', ...rest] = url.pathname.split('/');
    const route = routes[first];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no provider at /${first}`);
      return;
    }
    route(new URL(`/${rest.join('/')}${url.search}`, 'http://replay'), req, res);
  };
