import type { FastifyReply } from 'fastify';

export interface SseStream {
  /** Writes one `event:`/`data:` frame (with `id:` when given); ignored once the client has gone. */
  send(event: string, data: unknown, id?: string): void;
  /**
   * Tells the client where the stream starts: an event `ready` (data `{}`) with that id, the one EventSource sends
   * back as `Last-Event-ID` if it has to reconnect before the first real event (an `id:` line alone would be the
   * standard way, but not every client library keeps an id without data).
   */
  position(id: string): void;
  /** Runs when the client disconnects or the server closes the stream. */
  onClose(fn: () => void): void;
  /** Ends the stream from the server's side. */
  close(): void;
  readonly closed: boolean;
}

/**
 * Server-sent event streams. Headers set by earlier hooks (rate limit, security) are carried over because
 * the response is written by hand; a `: keep-alive` comment goes out on every stream at the interval, and a
 * disconnect is noticed at once (socket close) so subscriptions are freed immediately.
 */
export class SseHub {
  private readonly streams = new Set<() => void>();

  constructor(private readonly keepAliveMs: number) {}

  open(reply: FastifyReply): SseStream {
    reply.hijack();
    const res = reply.raw;
    const headers: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies such as nginx must not buffer the stream.
      'x-accel-buffering': 'no',
    });
    if (reply.request.method === 'HEAD') {
      // The headers are the answer: Node drops a HEAD response's body writes, so a stream would never flush them.
      res.end();
      return { send: () => undefined, position: () => undefined, onClose: (fn) => fn(), close: () => undefined, closed: true };
    }
    res.write(': connected\n\n');

    const closers: Array<() => void> = [];
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      this.streams.delete(close);
      for (const fn of closers) fn();
      if (!res.writableEnded) res.end();
    };
    const timer = setInterval(() => res.write(': keep-alive\n\n'), this.keepAliveMs);
    // The response's close fires when the client's connection goes (the request's fires once its body is read).
    res.on('close', close);
    res.on('error', close);
    this.streams.add(close);

    return {
      send: (event, data, id) => {
        if (!closed) res.write(`${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      },
      position: (id) => {
        if (!closed) res.write(`id: ${id}\nevent: ready\ndata: {}\n\n`);
      },
      onClose: (fn) => {
        closers.push(fn);
      },
      close,
      get closed() {
        return closed;
      },
    };
  }

  /** Ends every stream (graceful shutdown must not wait for clients that never hang up). */
  closeAll(): void {
    for (const close of [...this.streams]) close();
  }

  get size(): number {
    return this.streams.size;
  }
}
