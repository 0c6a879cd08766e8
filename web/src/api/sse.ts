import { authHeaders } from './client';

export interface ServerEvent {
  name: string;
  data: unknown;
}

/** Splits a text/event-stream into events; keeps the unfinished tail for the next chunk. */
export function parseEventStream(buffer: string): { events: ServerEvent[]; rest: string } {
  const events: ServerEvent[] = [];
  const blocks = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let name = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) continue;
    const text = data.join('\n');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: hand over the text.
    }
    events.push({ name, data: parsed });
  }
  return { events, rest };
}

export interface StreamHandle {
  close(): void;
}

/**
 * Follows an SSE endpoint with the session's token (EventSource cannot send one), reconnecting with a growing
 * delay after the server restarts or the network drops; `onOpen` runs on every (re)connection so callers can
 * refetch what they may have missed.
 */
export function followEventStream(path: string, onEvent: (event: ServerEvent) => void, onOpen?: () => void): StreamHandle {
  let closed = false;
  let controller: AbortController | null = null;
  let delay = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = async () => {
    if (closed) return;
    controller = new AbortController();
    try {
      const response = await fetch(path, {
        headers: { Accept: 'text/event-stream', ...authHeaders() },
        signal: controller.signal,
        cache: 'no-store',
      });
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      delay = 1000;
      onOpen?.();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const parsed = parseEventStream(buffer + value);
        buffer = parsed.rest;
        for (const event of parsed.events) onEvent(event);
      }
    } catch {
      // Reconnect below.
    }
    if (closed) return;
    timer = setTimeout(() => void connect(), delay);
    delay = Math.min(delay * 2, 15_000);
  };
  void connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      controller?.abort();
    },
  };
}
