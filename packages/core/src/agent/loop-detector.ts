import type { ToolCall } from '../llm/types.js';
import type { ToolResultMessage } from './types.js';

export interface LoopDetectionOptions {
  /** How many identical turns in a row count as a loop (default 5). */
  maxRepeats?: number;
}

export const DEFAULT_MAX_REPEATS = 5;

/**
 * Notices a model going round in circles, so a local GPU is not burnt for an hour: the same tool
 * calls with the same arguments turn after turn, the same answer text again and again, or two
 * turns alternating while their results stay the same. A call repeated after something changed
 * (`npm test` after an edit) is not a loop: the edit sits between the repeats.
 */
export class LoopDetector {
  private readonly maxRepeats: number;
  private readonly calls: string[] = [];
  private readonly outcomes: string[] = [];
  private readonly texts: string[] = [];

  constructor(options: LoopDetectionOptions = {}) {
    this.maxRepeats = Math.max(2, options.maxRepeats ?? DEFAULT_MAX_REPEATS);
  }

  /** Records one finished turn; returns why it looks like a loop, or undefined. */
  record(text: string, calls: readonly ToolCall[], results: readonly ToolResultMessage[]): string | undefined {
    const callKey = calls.map((call) => `${call.name} ${stableJson(call.arguments)}`).join('\n');
    this.calls.push(callKey);
    this.outcomes.push(
      `${callKey}\n=>\n${results.map((result) => (typeof result.content === 'string' ? result.content : JSON.stringify(result.content))).join('\n')}`,
    );
    this.texts.push(text.trim());
    // Only the last 2 × maxRepeats turns are ever compared: a long run must not hold every result.
    for (const history of [this.calls, this.outcomes, this.texts]) if (history.length > 2 * this.maxRepeats) history.shift();

    if (callKey && tailRepeats(this.calls) >= this.maxRepeats) {
      return `the same tool call${calls.length > 1 ? 's' : ''} (${describe(calls)}) ${this.maxRepeats} times in a row`;
    }
    const lastText = this.texts.at(-1)!;
    if (lastText && tailRepeats(this.texts) >= this.maxRepeats) return `the same answer text ${this.maxRepeats} times in a row`;
    // A-B-A-B...: two turns taking turns, with results that never change.
    const cycle = this.outcomes.slice(-2 * this.maxRepeats);
    if (cycle.length === 2 * this.maxRepeats && cycle[0] !== cycle[1] && cycle.every((outcome, i) => outcome === cycle[i % 2]) && callKey) {
      return `two tool calls alternating ${this.maxRepeats} times with the same results (${describe(calls)})`;
    }
    return undefined;
  }
}

function tailRepeats(values: readonly string[]): number {
  const last = values.at(-1);
  let count = 0;
  for (let i = values.length - 1; i >= 0 && values[i] === last; i--) count++;
  return count;
}

function describe(calls: readonly ToolCall[]): string {
  return calls.map((call) => `${call.name} ${stableJson(call.arguments)}`.slice(0, 120)).join(', ');
}

/** JSON with sorted keys, so `{a, b}` and `{b, a}` are the same call. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
