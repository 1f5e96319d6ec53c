import type { Usage } from '../llm/types.js';
import type { AgentEvent, UsageTotals } from './types.js';

export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, costUsd: 0, costKnown: true };
}

export function addUsage(totals: UsageTotals, usage: Usage): void {
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  if (usage.costUsd === undefined) totals.costKnown = false;
  else totals.costUsd += usage.costUsd;
}

/** The usage a subagent's answer reported, when `event` forwards one: it counts toward its parent's totals and budget. */
export function subagentUsage(event: AgentEvent): Usage | undefined {
  if (event.type !== 'subagent' || event.event.type !== 'message_end') return undefined;
  const message = event.event.message;
  return message.role === 'assistant' ? message.usage : undefined;
}
