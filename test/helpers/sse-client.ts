import { EventSource } from 'eventsource';

export interface Frame {
  event: string;
  data: Record<string, unknown>;
}

/**
 * A real EventSource client against a real port, authenticating with headers through its fetch hook. `errors`
 * counts the client's error events: a stream the server ends, and each refused reconnection.
 */
export function connect(base: string, path: string, headers: Record<string, string>, names: string[]) {
  const frames: Frame[] = [];
  const state = { errors: 0, lastEventId: null as string | null };
  const source = new EventSource(`${base}${path}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
  });
  for (const name of names)
    source.addEventListener(name, (e) => {
      state.lastEventId = e.lastEventId || state.lastEventId;
      frames.push({ event: name, data: JSON.parse(e.data) as Record<string, unknown> });
    });
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    source.onerror = (err) => {
      state.errors += 1;
      reject(new Error(`SSE error ${String(err.code ?? '')}`));
    };
  });
  opened.catch(() => undefined);
  return { frames, source, opened, state, lastEventId: () => state.lastEventId };
}

export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
