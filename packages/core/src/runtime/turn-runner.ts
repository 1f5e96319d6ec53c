import type { UserMessage } from '../agent/types.js';
import type { Handoffs } from './handoffs.js';
import type { BackgroundShells } from './background-shells.js';
import type { Live } from './live.js';
import { runTurn, type TurnOutcome } from './run-turn.js';
import type { SessionHooks } from './session-hooks.js';
import type { SettledAgent } from './settle-agent.js';
import { withStructuredOutput, type OutputFormat } from './structured-output.js';

export interface TurnRunnerInput {
  live: Live;
  hooks: Pick<SessionHooks, 'runner'>;
  /** Its guardrails gate each turn. */
  agent: Pick<SettledAgent, 'guardrails'>;
  handoffs: Pick<Handoffs, 'controller'>;
  /** With a JSON schema, every turn ends in a validated JSON answer (or the error saying why not). */
  outputFormat: OutputFormat | undefined;
  background: Pick<BackgroundShells, 'contextNote'>;
}

export type TurnRunner = (prompts: UserMessage[], signal?: AbortSignal) => Promise<TurnOutcome>;

/** Part: one turn of the user's on the live conversation, with its gates, hooks and routing. */
export function createTurnRunner(input: TurnRunnerInput): TurnRunner {
  const { live, handoffs } = input;
  const turn: TurnRunner = (prompts, signal) =>
    runTurn(live.session, prompts, {
      hooks: input.hooks.runner,
      guardrails: input.agent.guardrails,
      signal,
      // Each user message may move the conversation up to 3 times; `match:` routing is the first.
      beforeRun: async (text) => {
        handoffs.controller.startMessage();
        await handoffs.controller.route(text);
      },
      // Background tasks that ended, and those still running, travel with the prompt (the system
      // prompt stays byte-stable).
      startContext: () => [live.takeStartContext(), input.background.contextNote()].filter(Boolean).join('\n\n') || undefined,
    });
  return input.outputFormat?.type === 'json_schema' ? withStructuredOutput(turn, input.outputFormat.schema) : turn;
}
