import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * Node's http server options for the timeouts: a client must finish its request headers within
 * `headersTimeout` and its whole request (headers and body) within `requestTimeout`, or it gets 408 and is
 * closed. Node checks both every `connectionsCheckingInterval` (30 s by default, longer than the timeouts
 * we want): check at a quarter of the shorter one, so a timeout is enforced within 125% of its value.
 */
export function httpServerOptions(timeouts: ConnectionTimeouts): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  const shortest = Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs);
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(shortest / 4))),
  };
}

/**
 * Refuses (closes at once) a connection from an address that already holds `max` open ones, so one client
 * cannot take every file descriptor; 0 turns the cap off. Behind a reverse proxy every connection comes from
 * the proxy's address: raise the cap there, or turn it off and limit at the proxy.
 */
export function limitConnectionsPerAddress(server: Server, max: number, onRefused: (address: string, open: number) => void): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      onRefused(address, count);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/** A log line per address at most once a minute, however many connections it keeps opening. */
export function throttledPerAddress(
  log: (address: string, open: number) => void,
  intervalMs = 60_000,
): (address: string, open: number) => void {
  const lastLogged = new Map<string, number>();
  return (address, count) => {
    const now = Date.now();
    if (now - (lastLogged.get(address) ?? 0) < intervalMs) return;
    if (lastLogged.size > 10_000) lastLogged.clear();
    lastLogged.set(address, now);
    log(address, count);
  };
}
