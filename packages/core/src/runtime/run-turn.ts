import { userMessage } from '../agent/chat-session.js';
import { emptyUsage } from '../agent/usage.js';
import type { AgentRunResult, UserMessage } from '../agent/types.js';
import { checkOutputFunctions, type Guardrails } from '../guardrails/index.js';
import { gateFinalAnswer, gateUserPrompt, type HookRunner } from '../hooks/index.js';
import type { ChatSession } from '../agent/chat-session.js';

/** How one turn of the user's ended, beyond the agent's own result. */
export interface TurnOutcome {
  result: AgentRunResult;
  /** The answer as it may be printed: output guardrails applied (redacted, or a block rule's message). */
  answer: string;
  /** Why the turn did not run, or its answer was withheld: an input or output guardrail, or a hook. */
  refused?: { stage: 'prompt' | 'answer'; reason: string };
  /** Lines for the user, never the model: hook messages, guardrail warnings. */
  notices: string[];
  /** With an output schema: the validated JSON answer, or why none validated (runtime/structured-output.ts). */
  structured?: StructuredResult;
}

/** How the structured answer of a turn came out: the parsed value, or why it never validated. */
export type StructuredResult = { value: unknown } | { error: string };

/** A Stop hook may send the agent back to work this many times per turn, no more. */
const MAX_STOP_CONTINUATIONS = 5;

/**
 * One turn of the user's, the way every front end runs it: input guardrails and UserPromptSubmit
 * hooks on the prompt, SessionStart context before the first turn, the agent run, Stop hooks that
 * may send it on, and output guardrails on the final answer.
 */
export async function runTurn(
  session: ChatSession,
  prompts: UserMessage[],
  context: {
    hooks: HookRunner;
    guardrails: Guardrails;
    startContext: () => string | undefined;
    signal?: AbortSignal;
    /** Runs once the prompt passed its gates, before the agent (handoff routing by `match:`). */
    beforeRun?: (prompt: string) => Promise<void>;
  },
): Promise<TurnOutcome> {
  const notices: string[] = [];
  const typed = prompts.at(-1);
  let messages = prompts;
  if (typed) {
    const gate = await gateUserPrompt(typed.content, context.guardrails, context.hooks, context.signal);
    notices.push(...gate.userMessages);
    if (!gate.allowed) return refusedTurn(gate.reason, notices);
    if (gate.stop) return refusedTurn(gate.stop.reason, notices);
    const extra = [context.startContext(), gate.context].filter((part): part is string => !!part?.trim());
    const content = extra.length > 0 ? `${gate.prompt}\n\n<context>\n${extra.join('\n\n')}\n</context>` : gate.prompt;
    messages = [...prompts.slice(0, -1), { ...typed, content }];
    await context.beforeRun?.(gate.prompt);
  }

  let result = await session.prompt(messages, context.signal);
  for (let round = 0; round < MAX_STOP_CONTINUATIONS && result.stopReason === 'completed' && context.hooks.has('Stop'); round++) {
    const stop = await context.hooks.stop(undefined, context.signal);
    notices.push(...stop.userMessages);
    if (!stop.continueWith) break;
    result = await session.prompt(userMessage(stop.continueWith, 'follow_up'), context.signal);
  }

  const gate = gateFinalAnswer(result.finalText, context.guardrails);
  notices.push(...gate.warnings);
  if (gate.blocked)
    return { result, answer: gate.text, refused: { stage: 'answer', reason: `${gate.blocked.message} (guardrail: ${gate.blocked.rule})` }, notices };
  // The program's output guardrails judge any answer text the program would be given, as the rules
  // do (a run cut by maxTurns still hands over its last text).
  const tripped = gate.text ? await checkOutputFunctions(context.guardrails.functions, gate.text, context.signal ?? new AbortController().signal) : undefined;
  if (tripped) return { result, answer: tripped.message, refused: { stage: 'answer', reason: `${tripped.message} (guardrail: ${tripped.name})` }, notices };
  return { result, answer: gate.text, notices };
}

/** A turn that never ran: its prompt was refused (a guardrail, a hook, a command that cannot expand). */
function refusedTurn(reason: string, notices: string[] = []): TurnOutcome {
  const result: AgentRunResult = {
    stopReason: 'error',
    finalText: '',
    turns: 0,
    usage: emptyUsage(),
    apiDurationMs: 0,
    permissionDenials: [],
  };
  return { result, answer: '', refused: { stage: 'prompt', reason }, notices };
}
