import { abortedFailure, classifyError, failureFromInfo, type ErrorInfo, type FailureContext } from './failures.js';
import type { ProviderFailure, ProviderOptions, Reasoning, StreamEvent, ToolCall, Usage } from './types.js';
// Its own file: failures.ts reads it too, and retry.ts reads failures.ts.
export { parseRetryAfter } from './retry-after.js';

export interface RetryPolicy {
  /** Requests in total, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 };

/**
 * A person in the chat would rather wait out an outage than retype the prompt: ten requests with
 * waits of up to 30 s ride out about a minute and a half (0.5+1+2+4+8+16+30+30+30 s at most, 3/4 of
 * that on average with the jitter), as Claude Code's ten retries do. One-shot keeps the short policy.
 */
export const INTERACTIVE_RETRY_POLICY: Readonly<RetryPolicy> = { maxAttempts: 10, baseDelayMs: 500, maxDelayMs: 30_000 };

export function retryPolicy(overrides?: ProviderOptions['retry']): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(overrides ?? {}) };
  return {
    maxAttempts: Math.max(1, Math.floor(policy.maxAttempts)),
    baseDelayMs: Math.max(0, policy.baseDelayMs),
    maxDelayMs: Math.max(0, policy.maxDelayMs),
  };
}

/**
 * The wait before retry number `retry` (1 for the first retry): exponential backoff with equal
 * jitter, so the wait lies in [d/2, d] with d = base * 2^(retry-1), capped at maxDelayMs. A delay
 * the server asked for is honoured, but never beyond maxDelayMs.
 */
export function retryDelayMs(retry: number, policy: RetryPolicy, serverHintMs?: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = exponential / 2 + (random() * exponential) / 2;
  const wanted = serverHintMs !== undefined ? Math.max(serverHintMs, jittered) : jittered;
  return Math.round(Math.min(policy.maxDelayMs, wanted));
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What one streaming attempt yields as it goes. */
export type AttemptChunk =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'reasoning_delta'; text: string }
  /** The usage the provider reported so far (Anthropic's message_start): billed even if the stream then fails or is aborted. */
  | { type: 'usage'; usage: Usage };

/** How one attempt ended when it did not throw. A `failure` is a non-retryable refusal (e.g. a safety block). */
/** `responseModel`: the model the server says answered (an alias resolved to a dated snapshot), when it says. */
export type AttemptResult =
  { stopReason: 'stop' | 'tool_use' | 'length'; usage: Usage; reasoning?: Reasoning[]; responseModel?: string } | { failure: ProviderFailure; usage: Usage };

export interface StreamWithRetryOptions {
  policy: RetryPolicy;
  signal?: AbortSignal;
  context: FailureContext;
  /** One request; throws on failure. Its `signal` combines the caller's with the driver's. */
  attempt: (signal: AbortSignal | undefined) => AsyncGenerator<AttemptChunk, AttemptResult>;
  /** A wait the last response asked for (Retry-After), read after a failed attempt. */
  retryAfterMs?: () => number | undefined;
  costUsd: (usage: Usage) => number | undefined;
}

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

/**
 * Runs streaming attempts until one succeeds, a failure is final, or the policy's attempts are used
 * up. Retries only while nothing was streamed to the caller: once text or a tool call went out, a
 * cut stream is a final `network` failure. Never throws; the last event is `done` or `error`.
 */
export async function* streamWithRetry(options: StreamWithRetryOptions): AsyncGenerator<StreamEvent, void> {
  const { policy, signal, context } = options;
  const state = { text: '', toolCalls: [] as ToolCall[] };
  // What the provider reported for attempts that failed or were cut, and for the current one so
  // far: a request the server started answering is billed, so it counts.
  let earlier: Usage | undefined;
  let current: Usage | undefined;
  const spent = (last?: Usage): Usage | undefined =>
    [earlier, last].reduce<Usage | undefined>((total, usage) => (usage ? addCounts(total, usage) : total), undefined);
  const fail = (failure: ProviderFailure, usage: Usage | undefined = spent(current)): StreamEvent => ({
    type: 'error',
    stopReason: failure.kind === 'aborted' ? 'aborted' : 'error',
    failure,
    text: state.text,
    toolCalls: [...state.toolCalls],
    usage: usage ? withCost(usage, options) : ZERO_USAGE,
  });

  let restarted = false;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) {
      yield fail(abortedFailure());
      return;
    }
    let result: AttemptResult;
    earlier = spent(current);
    current = undefined;
    try {
      // Inside the try: building a request can throw too (an invalid host URL), and streams must not throw.
      const iterator = options.attempt(signal);
      for (;;) {
        const step = await nextOrAbort(iterator, signal);
        if (step === 'aborted') {
          yield fail(abortedFailure());
          return;
        }
        if (step.done) {
          result = step.value;
          break;
        }
        const chunk = step.value;
        if (chunk.type === 'usage') {
          current = chunk.usage;
          continue;
        }
        if (chunk.type === 'text_delta') {
          if (!chunk.text) continue;
          state.text += chunk.text;
        } else if (chunk.type === 'reasoning_delta') {
          if (!chunk.text) continue;
        } else {
          state.toolCalls.push(chunk.call);
        }
        yield chunk;
      }
    } catch (error) {
      if (signal?.aborted) {
        yield fail(abortedFailure());
        return;
      }
      const info = classifyError(error);
      // A stream cut after text (but before any tool call) is retried once from the start, the
      // partial text discarded; once a tool call went out, a second request could repeat it.
      const restart = state.text !== '' && state.toolCalls.length === 0 && !restarted;
      const streamedSomething = state.text !== '' || state.toolCalls.length > 0;
      if (!info.retryable || (streamedSomething && !restart) || attempt >= policy.maxAttempts) {
        const final: ErrorInfo = streamedSomething && info.retryable ? { ...info, kind: 'network', status: undefined } : info;
        yield fail(failureFromInfo(final, { ...context, attempts: attempt }));
        return;
      }
      const delayMs = retryDelayMs(attempt, policy, info.retryAfterMs ?? options.retryAfterMs?.());
      if (restart) {
        restarted = true;
        state.text = '';
      }
      yield {
        type: 'retry',
        attempt: attempt + 1,
        delayMs,
        maxAttempts: policy.maxAttempts,
        failure: failureFromInfo(info, { ...context, attempts: attempt }),
        ...(restart ? { restart: true } : {}),
      };
      if (!(await sleep(delayMs, signal))) {
        yield fail(abortedFailure());
        return;
      }
      continue;
    }

    if ('failure' in result) {
      yield fail(result.failure, spent(result.usage));
      return;
    }
    const stopReason = state.toolCalls.length > 0 && result.stopReason !== 'length' ? 'tool_use' : result.stopReason;
    const reasoning = result.reasoning?.length ? { reasoning: result.reasoning } : {};
    yield {
      type: 'done',
      stopReason,
      text: state.text,
      toolCalls: [...state.toolCalls],
      usage: withCost(spent(result.usage)!, options),
      ...reasoning,
      ...(result.responseModel ? { responseModel: result.responseModel } : {}),
    };
    return;
  }
}

function addCounts(total: Usage | undefined, usage: Usage): Usage {
  if (!total) return usage;
  const sum = (a?: number, b?: number) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  const cacheReadTokens = sum(total.cacheReadTokens, usage.cacheReadTokens);
  const cacheWriteTokens = sum(total.cacheWriteTokens, usage.cacheWriteTokens);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}

function withCost(usage: Usage, options: StreamWithRetryOptions): Usage {
  const costUsd = options.costUsd(usage);
  const { costUsd: _ignored, ...counts } = usage;
  return costUsd === undefined ? counts : { ...counts, costUsd };
}

/**
 * Awaits the next chunk, but returns at once when the signal aborts: an SDK that is slow to notice
 * the abort must not keep the user waiting. The abandoned iterator is closed in the background.
 */
async function nextOrAbort<T, R>(iterator: AsyncGenerator<T, R>, signal?: AbortSignal): Promise<IteratorResult<T, R> | 'aborted'> {
  if (!signal) return iterator.next();
  if (signal.aborted) {
    void iterator.return(undefined as R).catch(() => {});
    return 'aborted';
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const next = iterator.next();
  try {
    const winner = await Promise.race([next, aborted]);
    if (winner === 'aborted') {
      next.catch(() => {}); // the pending read rejects with AbortError; nobody is listening any more
      void iterator.return(undefined as R).catch(() => {});
    }
    return winner;
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

export interface RetryOptions {
  policy: RetryPolicy;
  signal?: AbortSignal;
  context: FailureContext;
  retryAfterMs?: () => number | undefined;
  onRetry?: (event: Extract<StreamEvent, { type: 'retry' }>) => void;
}

/** The unary counterpart of streamWithRetry, for listings and lookups. Never throws. */
export async function withRetry<T>(
  run: (signal: AbortSignal | undefined) => Promise<T>,
  options: RetryOptions,
): Promise<{ value: T } | { failure: ProviderFailure }> {
  const { policy, signal, context } = options;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) return { failure: abortedFailure() };
    try {
      return { value: await run(signal) };
    } catch (error) {
      if (signal?.aborted) return { failure: abortedFailure() };
      const info = classifyError(error);
      if (!info.retryable || attempt >= policy.maxAttempts) return { failure: failureFromInfo(info, { ...context, attempts: attempt }) };
      const delayMs = retryDelayMs(attempt, policy, info.retryAfterMs ?? options.retryAfterMs?.());
      options.onRetry?.({ type: 'retry', attempt: attempt + 1, delayMs, failure: failureFromInfo(info, { ...context, attempts: attempt }) });
      if (!(await sleep(delayMs, signal))) return { failure: abortedFailure() };
    }
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
