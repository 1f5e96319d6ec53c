import type { Usage } from '../llm/types.js';
import type { UsageTotals } from './types.js';

export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, costUsd: 0, costKnown: true };
}

export function addUsage(totals: UsageTotals, usage: Usage): void {
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  if (usage.costUsd === undefined) totals.costKnown = false;
  else totals.costUsd += usage.costUsd;
}
