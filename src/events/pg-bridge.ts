import pg from 'pg';
import type { EventBus, EventEnvelope } from './bus.js';

const CHANNEL = 'bindery_events';
const RECONNECT_MS = 2000;

export interface EventBridge {
  stop(): Promise<void>;
}

/**
 * Carries bus events between instances sharing one PostgreSQL database: every local event is sent with
 * NOTIFY, every notification from another instance is delivered to local listeners (its own echo is dropped
 * by the bus). LISTEN needs a dedicated connection outside the pool; it reconnects if the server drops it.
 */
export async function startPgEventBridge(
  connection: pg.ClientConfig,
  bus: EventBus,
  onError: (err: unknown) => void,
): Promise<EventBridge> {
  let stopped = false;
  let listener: pg.Client | undefined;
  const sender = new pg.Pool({ ...connection, max: 2 });
  sender.on('error', onError);

  const connect = async (): Promise<void> => {
    const client = new pg.Client(connection);
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        bus.deliverRemote(JSON.parse(msg.payload) as EventEnvelope);
      } catch (err) {
        onError(err);
      }
    });
    client.on('error', (err) => {
      onError(err);
      if (!stopped) setTimeout(() => void connect().catch(onError), RECONNECT_MS).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    listener = client;
  };
  await connect();

  const removeForwarder = bus.addForwarder((envelope) => {
    // NOTIFY payloads are limited to 8000 bytes; our events are a few hundred.
    sender.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(envelope)]).catch(onError);
  });

  return {
    stop: async () => {
      stopped = true;
      removeForwarder();
      await listener?.end().catch(() => undefined);
      await sender.end().catch(() => undefined);
    },
  };
}
