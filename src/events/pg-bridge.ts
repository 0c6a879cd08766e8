import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { EventBus, EventEnvelope } from './bus.js';

const CHANNEL = 'colophon_events';

export interface EventBridge {
  stop(): Promise<void>;
}

export interface EventBridgeOptions {
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Wait before the first reconnect of LISTEN; doubles after each failed attempt, up to `maxReconnectMs`. */
  reconnectMs?: number;
  maxReconnectMs?: number;
}

/**
 * Carries bus events between instances sharing one PostgreSQL database: every local event is sent with
 * NOTIFY, every notification from another instance is delivered to local listeners (its own echo is dropped
 * by the bus). LISTEN needs a dedicated connection outside the pool.
 *
 * The database may go away at any time (restart, failover, pg_terminate_backend): the LISTEN connection is then
 * reopened with capped exponential backoff, for as long as the process runs. NOTIFY does not queue for absent
 * listeners, so what other instances published meanwhile cannot be recovered; the outage is logged with its
 * length, and every local event that could not be sent is logged with its payload.
 */
export async function startPgEventBridge(connection: pg.ClientConfig, bus: EventBus, options: EventBridgeOptions): Promise<EventBridge> {
  const { log } = options;
  const firstDelay = options.reconnectMs ?? 500;
  const maxDelay = options.maxReconnectMs ?? 30_000;
  let stopped = false;
  let listener: pg.Client | undefined;
  let failedAttempts = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let lostAt: number | undefined;

  // Loaded here, not at import: only a server on PostgreSQL starts the bridge.
  const { default: pgModule } = await import('pg');
  const sender = new pgModule.Pool({ ...connection, max: 2 });
  // pool.query listens for errors only while its query runs: a dropped connection between queries must not crash.
  sender.on('connect', (client) => client.on('error', () => undefined));
  sender.on('error', (err) => log.warn({ err }, 'event bridge: a NOTIFY connection was dropped; the next event opens a new one'));

  /** Opens a client and LISTENs; from then on a lost connection schedules the next attempt by itself. */
  const listen = async (): Promise<void> => {
    // Keepalive probes notice a peer that vanished without closing the socket (a network partition).
    const client = new pgModule.Client({ ...connection, keepAlive: true });
    const lost = (err?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      void client.end().catch(() => undefined);
      if (stopped) return;
      lostAt = Date.now();
      log.warn({ err }, 'event bridge: LISTEN connection lost; events of other instances are missed until it is back');
      scheduleReconnect();
    };
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        bus.deliverRemote(JSON.parse(msg.payload) as EventEnvelope);
      } catch (err) {
        log.error({ err, payload: msg.payload }, 'event bridge: could not deliver a notification');
      }
    });
    // While connecting, connect() itself rejects; the listener only keeps the 'error' event from being uncaught.
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    listener = client;
  };

  const scheduleReconnect = (): void => {
    if (stopped || retryTimer) return;
    const delay = Math.min(maxDelay, firstDelay * 2 ** Math.min(failedAttempts, 20));
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      listen().then(
        () => {
          if (stopped) return;
          log.warn(
            { downMs: lostAt === undefined ? undefined : Date.now() - lostAt, attempts: failedAttempts + 1 },
            'event bridge: LISTEN connection restored; events other instances published while it was down were missed',
          );
          failedAttempts = 0;
          lostAt = undefined;
        },
        (err: unknown) => {
          failedAttempts += 1;
          log.warn(
            { err, attempts: failedAttempts, nextInMs: Math.min(maxDelay, firstDelay * 2 ** Math.min(failedAttempts, 20)) },
            'event bridge: reconnecting LISTEN failed; retrying',
          );
          scheduleReconnect();
        },
      );
    }, delay);
    retryTimer.unref();
  };

  try {
    await listen();
  } catch (err) {
    // The server starts anyway: requests answer 503 until the database is back, and the bridge keeps trying.
    lostAt = Date.now();
    log.error({ err }, 'event bridge: could not LISTEN; retrying in the background');
    scheduleReconnect();
  }

  // A scan publishes an event per book: those of one turn of the event loop go in one statement, in order,
  // instead of a round trip each (a 2,000-book scan spent ~0.3 s of the main thread on them). Notifications
  // with identical payloads within one statement are delivered once, which loses nothing: an event says
  // what changed, not how many times.
  let queued: EventEnvelope[] = [];
  let sending: Promise<void> = Promise.resolve();
  const sendQueued = () => {
    if (queued.length === 0) return;
    const envelopes = queued;
    queued = [];
    // NOTIFY payloads are limited to 8000 bytes each; our events are a few hundred.
    const payloads = envelopes.map((envelope) => JSON.stringify(envelope));
    // One statement after the other (the pool has two connections): a later turn's events never overtake.
    sending = sending
      .then(() => sender.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [CHANNEL, payloads]))
      .then(
        () => undefined,
        (err: unknown) => {
          for (const envelope of envelopes) {
            log.error(
              { err, event: envelope.event, payload: envelope.payload },
              'event bridge: could not send an event to other instances; they miss it',
            );
          }
        },
      );
  };
  const removeForwarder = bus.addForwarder((envelope) => {
    if (queued.length === 0) setImmediate(sendQueued);
    queued.push(envelope);
  });

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      removeForwarder();
      // What was published just before stopping still goes out.
      sendQueued();
      await sending;
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
      await sender.end().catch(() => undefined);
    },
  };
}
