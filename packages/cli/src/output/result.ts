import type { AgentRunResult } from '@beans/core';

export type ResultSubtype = 'success' | 'error_max_turns' | 'error_max_budget_usd' | 'error_during_execution';

/** The Claude Agent SDK `result` message, so tools built for it read Beans unchanged. */
export interface ResultMessage {
  type: 'result';
  subtype: ResultSubtype;
  is_error: boolean;
  result: string;
  session_id: string;
  num_turns: number;
  duration_ms: number;
  duration_api_ms: number;
  usage: { input_tokens: number; output_tokens: number };
  total_cost_usd: number;
  permission_denials: AgentRunResult['permissionDenials'];
  errors?: string[];
}

export function resultSubtype(result: AgentRunResult): ResultSubtype {
  switch (result.stopReason) {
    case 'completed':
      return 'success';
    case 'max_turns':
      return 'error_max_turns';
    case 'max_budget':
      return 'error_max_budget_usd';
    default:
      return 'error_during_execution';
  }
}

export function resultMessage(result: AgentRunResult, sessionId: string, durationMs: number, error?: string): ResultMessage {
  const subtype = resultSubtype(result);
  const message: ResultMessage = {
    type: 'result',
    subtype,
    is_error: subtype !== 'success',
    result: result.finalText,
    session_id: sessionId,
    num_turns: result.turns,
    duration_ms: durationMs,
    duration_api_ms: result.apiDurationMs,
    usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
    total_cost_usd: roundCost(result.usage.costUsd),
    permission_denials: result.permissionDenials,
  };
  if (error) message.errors = [error];
  return message;
}

function roundCost(cost: number): number {
  return Math.round(cost * 1e8) / 1e8;
}

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
    case 'error':
      return failureExitCode;
  }
}

/** A limit ends the run with a sentence that says which one and how to raise it. */
export function limitMessage(result: AgentRunResult, limits: { maxTurns?: number; maxBudgetUsd?: number }): string | undefined {
  if (result.stopReason === 'max_turns') return `Stopped after ${result.turns} turns (--max-turns ${limits.maxTurns}). Raise the limit or continue with \`beans --continue\`.`;
  if (result.stopReason === 'max_budget') return `Stopped at $${result.usage.costUsd.toFixed(4)} (--max-budget-usd ${limits.maxBudgetUsd}). Raise the budget or continue with \`beans --continue\`.`;
  return undefined;
}
