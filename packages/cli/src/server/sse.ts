import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { EventLog, LoggedEvent } from './event-log.js';

/** A comment line this often keeps proxies and idle-timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

const encoder = new TextEncoder();

/** `data: <JSON>` then `id: N`, as Hono's writeSSE wrote them (JSON holds no raw newline: one data line). */
export function eventFrame(id: number, value: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(value)}\nid: ${id}\n\n`);
}

/**
 * The newest events' frames, made once however many clients follow a log (twenty watchers made twenty
 * of each). Bounded, and replays make their own: the server keeps no second copy of every log.
 */
const recentFrames = new Map<LoggedEvent<unknown>, Uint8Array>();
const RECENT_FRAMES = 256;

function liveFrame(event: LoggedEvent<unknown>): Uint8Array {
  let bytes = recentFrames.get(event);
  if (!bytes) {
    bytes = eventFrame(event.id, event.value);
    recentFrames.set(event, bytes);
    if (recentFrames.size > RECENT_FRAMES) recentFrames.delete(recentFrames.keys().next().value!);
  }
  return bytes;
}

/** Node's response, which @hono/node-server (how `beans serve` serves the app) gives each request. */
function nodeResponse(c: Context): ServerResponse {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (!outgoing) throw new Error("Event streams are served only through Node's HTTP server (beans serve).");
  return outgoing;
}

/** One client's stream of server-sent events. */
export interface EventStream {
  /** Sends an event's frame (nothing once the stream ended or the client left). */
  write(bytes: Uint8Array): void;
  /** True once the client went away before the stream ended. */
  readonly left: boolean;
  end(): void;
  /** What the route returns: the response is Node's, written here. */
  readonly response: Response;
}

/**
 * Server-sent events written straight to Node's response (a web stream between them cost every
 * watcher a chain of promises per event): frames written in one tick go out in one write (cork), a
 * comment every HEARTBEAT_MS keeps a quiet stream open, a slow client's bytes wait in its own socket
 * buffer and never hold up the session. `onLeave` runs when the client goes before the stream ended.
 */
export function openEventStream(c: Context, onLeave?: () => void): EventStream {
  const response = nodeResponse(c);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.flushHeaders();
  let corked = false;
  let ended = false;
  let left = false;
  const send = (bytes: Uint8Array | string) => {
    // A write after end() is an 'error' event, which nothing here would catch.
    if (response.writableEnded || response.destroyed) return;
    if (!corked) {
      corked = true;
      response.cork();
      process.nextTick(() => {
        corked = false;
        response.uncork();
      });
    }
    response.write(bytes);
  };
  const heartbeat = setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS);
  // A connection that fails ends its stream ('close' follows); it is no error of the server's.
  response.on('error', () => undefined);
  response.once('close', () => {
    clearInterval(heartbeat);
    if (ended) return;
    left = true;
    onLeave?.();
  });
  return {
    write: send,
    get left() {
      return left;
    },
    end() {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      response.end();
    },
    response: RESPONSE_ALREADY_SENT,
  };
}

/**
 * A log as server-sent events: what it holds after `after`, then live until it closes or the client
 * leaves (`onLeave`).
 */
export function streamLog<T>(c: Context, log: EventLog<T>, after: number, onLeave?: () => void): Response {
  let stop = () => {};
  const stream = openEventStream(c, () => {
    stop();
    onLeave?.();
  });
  for (const event of log.since(after)) stream.write(eventFrame(event.id, event.value));
  stop = log.follow(
    (event) => stream.write(liveFrame(event)),
    () => stream.end(),
  );
  return stream.response;
}
