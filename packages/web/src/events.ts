import { EventSourceParserStream } from 'eventsource-parser/stream';
import { apiUrl, type Api } from './api.js';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'ended';

export interface FollowHandlers {
  /** One event: its number and its stream-json message. */
  event(id: number, message: unknown): void;
  connection(state: Connection, detail?: string): void;
}

/** Waits after a dropped connection: 0.5 s, then doubling up to 8 s, back to 0.5 s once connected. */
const RETRY_MS = [500, 1_000, 2_000, 4_000, 8_000];

/**
 * Follows a session's event stream with fetch's body reader (an EventSource cannot send the bearer
 * header): the replay, then live. A dropped connection reconnects by itself with `Last-Event-ID` set to
 * the last event seen, so nothing is missed or shown twice. Ends when the server ends the stream (the
 * session was stopped), on a 404, or when `signal` aborts.
 */
export async function followEvents(api: Api, sessionId: string, handlers: FollowHandlers, signal: AbortSignal): Promise<void> {
  let lastId = 0;
  let failures = 0;
  while (!signal.aborted) {
    handlers.connection(lastId === 0 && failures === 0 ? 'connecting' : 'reconnecting');
    try {
      const headers = api.headers({ accept: 'text/event-stream' });
      if (lastId > 0) headers['last-event-id'] = String(lastId);
      const response = await fetch(apiUrl(`v1/sessions/${encodeURIComponent(sessionId)}/events`), {
        headers,
        signal,
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
      });
      if (response.status === 404 || response.status === 401) {
        handlers.connection('ended', response.status === 404 ? 'This session is no longer on the server.' : 'The server refused the token.');
        return;
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      handlers.connection('live');
      failures = 0;
      const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const id = Number(value.id);
        if (!Number.isInteger(id) || id <= lastId) continue;
        lastId = id;
        let message: unknown;
        try {
          message = JSON.parse(value.data);
        } catch {
          continue;
        }
        handlers.event(id, message);
      }
      // The server ends the stream when the session stops; a proxy that closed it early is followed again.
      const summary = await api.session(sessionId).catch(() => undefined);
      if (!summary || summary.state === 'done' || summary.state === 'failed') {
        handlers.connection('ended', 'The session was stopped.');
        return;
      }
    } catch (error) {
      if (signal.aborted) return;
      failures++;
      handlers.connection('reconnecting', error instanceof Error ? error.message : String(error));
      await sleep(RETRY_MS[Math.min(failures - 1, RETRY_MS.length - 1)], signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
