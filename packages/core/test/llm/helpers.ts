import { createServer } from 'node:net';
import type { StreamEvent } from '../../src/llm/types.js';

/** Fast retries so fault tests take milliseconds; the policy shape is the real one. */
export const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 };

export async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function lastEvent(events: StreamEvent[]): StreamEvent {
  const last = events.at(-1);
  if (!last) throw new Error('the stream produced no events');
  return last;
}

export function finalError(events: StreamEvent[]): Extract<StreamEvent, { type: 'error' }> {
  const last = lastEvent(events);
  if (last.type !== 'error') throw new Error(`expected the stream to end with an error, got ${JSON.stringify(last)}`);
  return last;
}

export function finalDone(events: StreamEvent[]): Extract<StreamEvent, { type: 'done' }> {
  const last = lastEvent(events);
  if (last.type !== 'done') throw new Error(`expected the stream to end with done, got ${JSON.stringify(last)}`);
  return last;
}

export function textOf(events: StreamEvent[]): string {
  return events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
}

/** A port nothing listens on: bound by the OS, then released. */
export async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
