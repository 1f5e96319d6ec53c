import type { ConversationFactory } from './conversation.js';
import type { Handoffs } from './handoffs.js';
import type { Live } from './live.js';
import type { SessionHooks } from './session-hooks.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SessionStorage } from './session-storage.js';

export interface FirstConversationInput {
  options: Pick<AgentSessionOptions, 'resume' | 'continue'>;
  storage: Pick<SessionStorage, 'store'>;
  conversation: ConversationFactory;
  handoffs: Pick<Handoffs, 'restoreAgent'>;
  hooks: Pick<SessionHooks, 'runner'>;
  live: Live;
}

export interface FirstConversation {
  /** No earlier session to continue, lines repaired in a resumed one, its agent gone, SessionStart hooks' messages. */
  warnings: string[];
}

/**
 * Part: opens the first conversation (new, `resume` by id, or `continue` the newest) as
 * `live.session`, back with the agent that held it, and runs SessionStart hooks, whose output is
 * context for the first turn.
 */
export async function openFirstConversation(input: FirstConversationInput): Promise<FirstConversation> {
  const { options, live } = input;
  const { store } = input.storage;
  const warnings: string[] = [];
  let resumeId: string | undefined;
  if (options.resume && store) resumeId = store.resolveId(options.resume);
  else if (options.continue && store) {
    resumeId = store.newest()?.id;
    if (!resumeId) warnings.push('No earlier session in this workspace; starting a new one.');
  }
  const opened = await input.conversation(resumeId);
  warnings.push(...opened.warnings);
  live.session = opened.session;
  warnings.push(...(await input.handoffs.restoreAgent(live.session)));
  // What hooks want the user to know: warnings before the first turn, the front end's channel after.
  const hooks = input.hooks.runner;
  if (hooks.has('SessionStart')) {
    const started = await hooks.sessionStart(resumeId ? 'resume' : 'startup');
    warnings.push(...started.userMessages);
    live.startContext = started.context;
  }
  return { warnings };
}
