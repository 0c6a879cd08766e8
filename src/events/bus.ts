import { randomUUID } from 'node:crypto';
import type { EventMap, EventName } from './types.js';

export type Listener<K extends EventName> = (payload: EventMap[K], event: K) => void;
export type AnyListener = <K extends EventName>(event: K, payload: EventMap[K]) => void;

/** An event as it travels between processes: the origin lets a bridge drop its own echo. */
export interface EventEnvelope<K extends EventName = EventName> {
  origin: string;
  event: K;
  payload: EventMap[K];
}

/**
 * Typed in-process publish/subscribe. Listeners run synchronously after the publisher's work is done
 * (publishers emit after commit); a throwing listener is isolated so it never breaks the publisher.
 *
 * Cross-process delivery (PostgreSQL LISTEN/NOTIFY) plugs in as a bridge: `addForwarder` receives every
 * locally published envelope to send out, and the bridge hands what it receives to `deliverRemote`, which
 * notifies local listeners only (so nothing loops back out).
 */
export class EventBus {
  /** Identifies this process for bridges. */
  readonly origin = randomUUID();
  private readonly listeners = new Map<EventName, Set<Listener<EventName>>>();
  private readonly anyListeners = new Set<AnyListener>();
  private readonly forwarders = new Set<(envelope: EventEnvelope) => void>();

  constructor(private readonly onListenerError: (err: unknown, event: EventName) => void = () => undefined) {}

  on<K extends EventName>(event: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as unknown as Listener<EventName>);
    return () => set.delete(listener as unknown as Listener<EventName>);
  }

  /** Every event (SSE streams filter by name themselves). */
  onAny(listener: AnyListener): () => void {
    this.anyListeners.add(listener);
    return () => this.anyListeners.delete(listener);
  }

  publish<K extends EventName>(event: K, payload: EventMap[K]): void {
    this.notify(event, payload);
    if (this.forwarders.size > 0) {
      const envelope: EventEnvelope = { origin: this.origin, event, payload } as EventEnvelope;
      for (const forward of this.forwarders) this.guard(event, () => forward(envelope));
    }
  }

  addForwarder(forward: (envelope: EventEnvelope) => void): () => void {
    this.forwarders.add(forward);
    return () => this.forwarders.delete(forward);
  }

  /** An event published by another process; ignored when it is our own echo. */
  deliverRemote(envelope: EventEnvelope): void {
    if (envelope.origin === this.origin) return;
    this.notify(envelope.event, envelope.payload);
  }

  listenerCount(): number {
    let n = this.anyListeners.size;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  private notify<K extends EventName>(event: K, payload: EventMap[K]): void {
    const set = this.listeners.get(event);
    if (set) for (const listener of [...set]) this.guard(event, () => listener(payload, event));
    for (const listener of [...this.anyListeners]) this.guard(event, () => listener(event, payload));
  }

  private guard(event: EventName, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onListenerError(err, event);
    }
  }
}
