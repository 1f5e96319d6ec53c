import type { AgentRunResult } from '@beans/core';

/** Exit codes of the product contract for a finished run. */
export function exitCodeForRun(result: AgentRunResult, failureExitCode: number): number {
  switch (result.stopReason) {
    case 'completed':
      return 0;
    case 'max_turns':
    case 'max_budget':
      return 4;
    case 'aborted':
      return 130;
    case 'loop':
      return 1;
    case 'error':
      return failureExitCode;
  }
}

/** A limit ends the run with a sentence that says which one and how to raise it. */
export function limitMessage(result: AgentRunResult, limits: { maxTurns?: number; maxBudgetUsd?: number }): string | undefined {
  if (result.stopReason === 'max_turns')
    return `Stopped after ${result.turns} turns (--max-turns ${limits.maxTurns}). Raise the limit or continue with \`beans --continue\`.`;
  if (result.stopReason === 'max_budget')
    return `Stopped at $${result.usage.costUsd.toFixed(4)} (--max-budget-usd ${limits.maxBudgetUsd}). Raise the budget or continue with \`beans --continue\`.`;
  if (result.stopReason === 'loop') return `loop detected: ${result.loop}. The run was stopped; rephrase the task or continue with \`beans --continue\`.`;
  return undefined;
}
