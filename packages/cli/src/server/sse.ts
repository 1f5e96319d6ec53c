import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { EventLog, LoggedEvent } from './event-log.js';

/** A comment line this often keeps proxies and idle-timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

const encoder = new TextEncoder();
/**
 * The newest events' frames, made once however many clients follow a log (twenty watchers made twenty
 * of each). Bounded: a replay of old events makes its frames again rather than the server keeping a
 * second copy of every session's log.
 */
const recentFrames = new Map<LoggedEvent<unknown>, Uint8Array>();
const RECENT_FRAMES = 256;

/** `data: <JSON>` then `id: N`, as Hono's writeSSE writes them (JSON holds no raw newline: one data line). */
function frame(event: LoggedEvent<unknown>): Uint8Array {
  let bytes = recentFrames.get(event);
  if (!bytes) {
    bytes = encoder.encode(`data: ${JSON.stringify(event.value)}\nid: ${event.id}\n\n`);
    recentFrames.set(event, bytes);
    if (recentFrames.size > RECENT_FRAMES) recentFrames.delete(recentFrames.keys().next().value!);
  }
  return bytes;
}

/** The queued events' frames as one write: a burst of chunks is one write to the socket, not one each. */
function batch(events: readonly LoggedEvent<unknown>[]): Uint8Array {
  return events.length === 1 ? frame(events[0]) : Buffer.concat(events.map(frame));
}

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
        while (queue.length > 0 && !stream.aborted) await stream.write(batch(queue.splice(0)));
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
