import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { EventLog } from './event-log.js';

/** A comment line this often keeps proxies and idle-timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

/**
 * A log as server-sent events: what it holds after `after`, then live until it closes or the client
 * leaves (`onLeave`). Each event is `id: N` and `data:` its JSON.
 */
export function streamLog<T>(c: Context, log: EventLog<T>, after: number, onLeave?: () => void): Response {
  return streamSSE(c, async (stream) => {
    let wake: (() => void) | undefined;
    let ended = false;
    const queue = [...log.since(after)];
    const stop = log.follow(
      (event) => {
        queue.push(event);
        wake?.();
      },
      () => {
        ended = true;
        wake?.();
      },
    );
    stream.onAbort(() => {
      ended = true;
      wake?.();
    });
    const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
    try {
      for (;;) {
        while (queue.length > 0 && !stream.aborted) {
          const event = queue.shift()!;
          await stream.writeSSE({ id: String(event.id), data: JSON.stringify(event.value) });
        }
        if (ended || stream.aborted) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      clearInterval(heartbeat);
      stop();
      if (stream.aborted) onLeave?.();
    }
  });
}
