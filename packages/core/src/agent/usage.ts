import type { Usage } from '../llm/types.js';
import type { AgentEvent, UsageTotals } from './types.js';

export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, costKnown: true };
}

export function addUsage(totals: UsageTotals, usage: Usage): void {
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.cacheReadTokens += usage.cacheReadTokens ?? 0;
  totals.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
  if (usage.costUsd === undefined) totals.costKnown = false;
  else totals.costUsd += usage.costUsd;
}

/** A one-off request's usage when it spent anything (one refused before the model ran reports zeros). */
export function spentUsage(usage: Usage): Usage | undefined {
  return usage.inputTokens || usage.outputTokens || usage.cacheReadTokens || usage.cacheWriteTokens ? usage : undefined;
}

/** The usage a subagent's answer reported, when `event` forwards one: it counts toward its parent's totals and budget. */
export function subagentUsage(event: AgentEvent): Usage | undefined {
  if (event.type !== 'subagent') return undefined;
  if (event.event.type === 'usage') return event.event.usage; // the child's own compaction
  if (event.event.type !== 'message_end') return undefined;
  const message = event.event.message;
  return message.role === 'assistant' ? message.usage : undefined;
}

/** Reports what a request beside the conversation (a compaction summary) cost, as a `usage` event. */
export type SpendFn = (usage: Usage, model: string) => void;
