import { randomUUID } from 'node:crypto';
import type { EventMap, EventName } from './types.js';

/** `id`: the event's id, the same in every process (an SSE message's `id:`, what `Last-Event-ID` names). */
export type Listener<K extends EventName> = (payload: EventMap[K], event: K, id: string) => void;
export type AnyListener = <K extends EventName>(event: K, payload: EventMap[K]) => void;

/** An event as it travels between processes: the origin lets a bridge drop its own echo. */
export interface EventEnvelope<K extends EventName = EventName> {
  origin: string;
  /** Unique across processes: `<time base 36>-<origin>-<sequence>`. */
  id: string;
  event: K;
  payload: EventMap[K];
}

/** An id's process and sequence (`<time>-<origin>-<sequence>`; the origin is a UUID, dashes included). */
function parts(id: string): { origin: string; sequence: number } | null {
  const first = id.indexOf('-');
  const last = id.lastIndexOf('-');
  if (first < 0 || last <= first) return null;
  const sequence = Number(id.slice(last + 1).replace(/^r/, ''));
  return Number.isFinite(sequence) ? { origin: id.slice(first + 1, last), sequence } : null;
}

/** Events kept for clients that reconnect (`Last-Event-ID`): a few minutes of a busy scan's. */
const RECENT_EVENTS = 5000;

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
  private readonly recent: EventEnvelope[] = [];
  private sequence = 0;

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
    this.sequence += 1;
    const envelope = {
      origin: this.origin,
      id: `${Date.now().toString(36)}-${this.origin}-${this.sequence}`,
      event,
      payload,
    } as EventEnvelope;
    this.notify(envelope);
    for (const forward of this.forwarders) this.guard(event, () => forward(envelope));
  }

  /**
   * The events this process has heard (its own and, through a bridge, every other's) after the one with `id`, in
   * the order heard; null when `id` is not among the last ones kept (too old, or from before this process started).
   */
  /** The id of the last event this process heard; undefined before the first. */
  latestId(): string | undefined {
    return this.recent.at(-1)?.id;
  }

  since(id: string): EventEnvelope[] | null {
    const at = this.recent.findLastIndex((e) => e.id === id);
    if (at < 0) return null;
    // Instances hear each other's events a moment after their own, so their orders differ a little: of the events
    // after `id` here, those its own process published before it were already sent on the stream that named it.
    const named = parts(id);
    return this.recent.slice(at + 1).filter((e) => {
      const p = parts(e.id);
      return !(named && p && p.origin === named.origin && p.sequence <= named.sequence);
    });
  }

  addForwarder(forward: (envelope: EventEnvelope) => void): () => void {
    this.forwarders.add(forward);
    return () => this.forwarders.delete(forward);
  }

  /** An event published by another process; ignored when it is our own echo. */
  deliverRemote(envelope: EventEnvelope): void {
    if (envelope.origin === this.origin) return;
    // A process of an older version sends no id: one is made here (it cannot be named by another process).
    this.notify(envelope.id ? envelope : { ...envelope, id: `${Date.now().toString(36)}-${envelope.origin}-r${(this.sequence += 1)}` });
  }

  listenerCount(): number {
    let n = this.anyListeners.size;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  private notify(envelope: EventEnvelope): void {
    const { event, payload, id } = envelope;
    this.recent.push(envelope);
    // Trimmed by the hundred, not one by one: a shift of thousands per event would cost a busy scan.
    if (this.recent.length > RECENT_EVENTS + 500) this.recent.splice(0, this.recent.length - RECENT_EVENTS);
    const set = this.listeners.get(event);
    if (set) for (const listener of [...set]) this.guard(event, () => listener(payload, event, id));
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
