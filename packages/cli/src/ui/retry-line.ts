import type { ProviderFailure } from '@beans/core';
import { S, span, type StyledLine } from './styled.js';

/** A wait before the provider is asked again (a 429, 5xx or overloaded answer): when it ends, which attempt comes, why. */
export interface RetryWait {
  until: number;
  attempt: number;
  maxAttempts?: number;
  cause: string;
}

/** Why the provider is asked again, in a person's words, with the HTTP status when there is one. */
export function retryCause(failure: ProviderFailure): string {
  const words =
    failure.status === 529 || /overloaded/i.test(failure.message)
      ? 'overloaded'
      : failure.kind === 'rate_limit'
        ? 'rate limited'
        : failure.kind === 'server'
          ? 'server error'
          : failure.kind === 'network'
            ? 'connection dropped'
            : failure.kind.replace(/_/g, ' ');
  return failure.status ? `${words} (${failure.status})` : words;
}

/** `↻ retrying in 12s · overloaded (529) · attempt 3 of 10 · esc stops waiting`, the seconds counting down each frame. */
export function retryLine(wait: RetryWait, now: number): StyledLine {
  const left = Math.ceil((wait.until - now) / 1000);
  const when = left > 0 ? `retrying in ${left}s` : 'retrying now';
  const attempt = wait.maxAttempts ? `attempt ${wait.attempt} of ${wait.maxAttempts}` : `attempt ${wait.attempt}`;
  return [span(`↻ ${when}`, S.yellow), span(` · ${wait.cause} · ${attempt}`, S.dim), span(left > 0 ? ' · esc stops waiting' : '', S.dim)];
}
