import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  retryDelayMs,
  retryPolicy,
  sleep,
  streamWithRetry,
  withRetry,
  type AttemptChunk,
  type AttemptResult,
} from '../../src/llm/retry.js';
import type { StreamEvent } from '../../src/llm/types.js';
import { drain, finalDone, finalError } from './helpers.js';

const context = { provider: 'gemini', host: 'http://gemini.test' };
const usage = { inputTokens: 1, outputTokens: 1 };
const httpError = (status: number) => Object.assign(new Error(JSON.stringify({ error: { code: status, message: `status ${status}` } })), { status });
const connectionReset = () => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });

/** An attempt function that fails with the given errors, one per attempt, then answers. */
function scriptedAttempts(errors: Error[], before: AttemptChunk[] = []) {
  const starts: number[] = [];
  const attempt = async function* (): AsyncGenerator<AttemptChunk, AttemptResult> {
    starts.push(performance.now());
    const error = errors[starts.length - 1];
    for (const chunk of before) yield chunk;
    if (error) throw error;
    yield { type: 'text_delta', text: 'answer' };
    return { stopReason: 'stop', usage };
  };
  return { attempt, starts };
}

describe('retry delays', () => {
  it('defaults to 4 attempts, 500 ms base and an 8 s cap', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 });
    expect(retryPolicy({ baseDelayMs: 10 })).toEqual({ maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 8_000 });
  });

  it('doubles each time, with jitter between half and the full delay, and never exceeds the cap', () => {
    const policy = retryPolicy();
    for (let retry = 1; retry <= 8; retry++) {
      const full = Math.min(8_000, 500 * 2 ** (retry - 1));
      expect(retryDelayMs(retry, policy, undefined, () => 0)).toBe(full / 2);
      expect(retryDelayMs(retry, policy, undefined, () => 0.999999)).toBe(full);
      for (let i = 0; i < 50; i++) {
        const delay = retryDelayMs(retry, policy);
        expect(delay).toBeGreaterThanOrEqual(full / 2);
        expect(delay).toBeLessThanOrEqual(full);
      }
    }
  });

  it('waits at least what the server asked for, but no longer than the cap', () => {
    const policy = retryPolicy();
    expect(retryDelayMs(1, policy, 3_000, () => 0)).toBe(3_000);
    expect(retryDelayMs(1, policy, 60_000, () => 0)).toBe(8_000);
    expect(retryDelayMs(4, policy, 10, () => 1)).toBe(4_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('sleeps until aborted, and not a moment longer', async () => {
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 20);
    expect(await sleep(10_000, controller.signal)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
    expect(await sleep(1)).toBe(true);
  });
});

describe('streamWithRetry', () => {
  it('spaces its attempts by the backoff it announces in retry events', async () => {
    const policy = { maxAttempts: 4, baseDelayMs: 40, maxDelayMs: 1_000 };
    const { attempt, starts } = scriptedAttempts([httpError(503), httpError(503), httpError(503)]);
    const events = await drain(streamWithRetry({ policy, context, attempt, costUsd: () => undefined }));
    const retries = events.filter((e): e is Extract<StreamEvent, { type: 'retry' }> => e.type === 'retry');
    expect(retries.map((r) => r.attempt)).toEqual([2, 3, 4]);
    // The chat shows "attempt 2 of 4".
    expect(retries.map((r) => r.maxAttempts)).toEqual([4, 4, 4]);
    retries.forEach((retry, i) => {
      const full = 40 * 2 ** i;
      expect(retry.delayMs).toBeGreaterThanOrEqual(full / 2);
      expect(retry.delayMs).toBeLessThanOrEqual(full);
      const waited = starts[i + 1] - starts[i];
      expect(waited).toBeGreaterThanOrEqual(retry.delayMs - 2);
      expect(waited).toBeLessThan(retry.delayMs + 400); // slack for a busy machine
    });
    expect(finalDone(events).text).toBe('answer');
  });

  it('stops after maxAttempts and says how many tries were made', async () => {
    const { attempt, starts } = scriptedAttempts([httpError(500), httpError(500), httpError(500), httpError(500), httpError(500)]);
    const events = await drain(streamWithRetry({ policy: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, context, attempt, costUsd: () => undefined }));
    expect(starts).toHaveLength(3);
    expect(finalError(events).failure).toMatchObject({ kind: 'server', status: 500, message: expect.stringContaining('after 3 tries') });
  });

  it('does not retry a request the server rejected as wrong', async () => {
    const { attempt, starts } = scriptedAttempts([httpError(400)]);
    const events = await drain(streamWithRetry({ policy: retryPolicy({ baseDelayMs: 1 }), context, attempt, costUsd: () => undefined }));
    expect(starts).toHaveLength(1);
    expect(finalError(events).failure.kind).toBe('bad_request');
  });

  it('retries a dropped connection before output, but not once text reached the caller', async () => {
    const before = scriptedAttempts([connectionReset()]);
    const recovered = await drain(streamWithRetry({ policy: retryPolicy({ baseDelayMs: 1 }), context, attempt: before.attempt, costUsd: () => undefined }));
    expect(before.starts).toHaveLength(2);
    expect(finalDone(recovered).text).toBe('answer');

    const after = scriptedAttempts(
      [connectionReset()],
      [
        { type: 'text_delta', text: 'partial ' },
        { type: 'tool_call', call: { id: 'c1', name: 'read_file', arguments: {} } },
      ],
    );
    const cut = await drain(streamWithRetry({ policy: retryPolicy({ baseDelayMs: 1 }), context, attempt: after.attempt, costUsd: () => undefined }));
    expect(after.starts).toHaveLength(1);
    expect(finalError(cut)).toMatchObject({ failure: { kind: 'network' }, text: 'partial ', toolCalls: [{ id: 'c1', name: 'read_file' }] });
  });

  it('retries a stream cut after text (but before a tool call) once, from the start', async () => {
    const cutText = scriptedAttempts([connectionReset(), connectionReset()], [{ type: 'text_delta', text: 'partial ' }]);
    const events = await drain(streamWithRetry({ policy: retryPolicy({ baseDelayMs: 1 }), context, attempt: cutText.attempt, costUsd: () => undefined }));
    // The first cut restarts the answer; the second is final (one restart only).
    expect(cutText.starts).toHaveLength(2);
    expect(events.filter((e) => e.type === 'retry')).toMatchObject([{ restart: true }]);
    expect(finalError(events)).toMatchObject({ failure: { kind: 'network' }, text: 'partial ' });

    const once = scriptedAttempts([connectionReset()], [{ type: 'text_delta', text: 'partial ' }]);
    const recovered = await drain(streamWithRetry({ policy: retryPolicy({ baseDelayMs: 1 }), context, attempt: once.attempt, costUsd: () => undefined }));
    expect(once.starts).toHaveLength(2);
    expect(finalDone(recovered).text).toBe('partial answer');
  });

  it('ends with an aborted failure as soon as the caller aborts during a wait', async () => {
    const controller = new AbortController();
    const { attempt, starts } = scriptedAttempts([httpError(429), httpError(429)]);
    const started = performance.now();
    const events: StreamEvent[] = [];
    for await (const event of streamWithRetry({
      policy: { maxAttempts: 4, baseDelayMs: 10_000, maxDelayMs: 10_000 },
      signal: controller.signal,
      context,
      attempt,
      costUsd: () => undefined,
    })) {
      events.push(event);
      if (event.type === 'retry') controller.abort();
    }
    expect(performance.now() - started).toBeLessThan(500);
    expect(starts).toHaveLength(1);
    expect(finalError(events)).toMatchObject({ stopReason: 'aborted', failure: { kind: 'aborted' } });
  });

  it('adds the cost to the usage of a finished stream', async () => {
    const { attempt } = scriptedAttempts([]);
    const done = finalDone(await drain(streamWithRetry({ policy: retryPolicy(), context, attempt, costUsd: () => 0.5 })));
    expect(done.usage).toEqual({ inputTokens: 1, outputTokens: 1, costUsd: 0.5 });
  });
});

describe('withRetry', () => {
  it('retries unary calls the same way and reports the final failure instead of throwing', async () => {
    let calls = 0;
    const retries: number[] = [];
    const result = await withRetry(
      async () => {
        calls++;
        throw httpError(503);
      },
      { policy: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, context, onRetry: (e) => retries.push(e.attempt) },
    );
    expect(calls).toBe(3);
    expect(retries).toEqual([2, 3]);
    expect(result).toMatchObject({ failure: { kind: 'server' } });
  });
});
