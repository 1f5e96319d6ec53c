import { checkInput, checkOutput, type Guardrails } from '../guardrails/guardrails.js';
import { checkInputFunctions } from '../guardrails/function-guardrails.js';
import type { HookRunner } from './runner.js';

export type PromptGate =
  | {
      allowed: false;
      /** For the user: the guardrail's message naming the rule, or the hook's reason. Exit code 2 in one-shot. */
      reason: string;
      userMessages: string[];
    }
  | {
      allowed: true;
      /** The prompt to send (after `redact` guardrails). */
      prompt: string;
      /** Hook output for the model, to send with the prompt. */
      context?: string;
      /** Guardrail warnings and hook messages for the user. */
      userMessages: string[];
      /** A hook said `continue: false`: end the run with this reason instead of sending the prompt. */
      stop?: { reason: string };
    };

/**
 * What happens to a user's prompt before the model sees it: input guardrails first, the rules then
 * the program's functions (a blocked prompt never reaches a hook script), then UserPromptSubmit hooks
 * on the redacted text.
 */
export async function gateUserPrompt(prompt: string, guardrails: Guardrails, hooks: HookRunner | undefined, signal?: AbortSignal): Promise<PromptGate> {
  const verdict = checkInput(guardrails, prompt);
  if (verdict.blocked) return { allowed: false, reason: `${verdict.blocked.message} (guardrail: ${verdict.blocked.rule})`, userMessages: verdict.warnings };
  const tripped = await checkInputFunctions(guardrails.functions, verdict.text, signal ?? new AbortController().signal);
  if (tripped) return { allowed: false, reason: `${tripped.message} (guardrail: ${tripped.name})`, userMessages: verdict.warnings };
  const outcome = hooks?.has('UserPromptSubmit') ? await hooks.userPromptSubmit(verdict.text, signal) : undefined;
  const userMessages = [...verdict.warnings, ...(outcome?.userMessages ?? [])];
  if (outcome?.blocked) return { allowed: false, reason: outcome.blocked.reason, userMessages };
  return {
    allowed: true,
    prompt: verdict.text,
    userMessages,
    ...(outcome?.context ? { context: outcome.context } : {}),
    ...(outcome?.stop ? { stop: outcome.stop } : {}),
  };
}

export interface AnswerGate {
  /** What to print and save: the answer after `redact` rules, or a `block` rule's message. */
  text: string;
  /** A block rule fired: the run ends as an error (exit 1 in one-shot). */
  blocked?: { rule: string; message: string };
  warnings: string[];
}

/** Output guardrails on the final answer, before it is printed and saved. */
export function gateFinalAnswer(answer: string, guardrails: Guardrails): AnswerGate {
  const verdict = checkOutput(guardrails, answer);
  if (verdict.blocked) return { text: verdict.blocked.message, blocked: verdict.blocked, warnings: verdict.warnings };
  return { text: verdict.text, warnings: verdict.warnings };
}
