import type { ConversationFactory } from './conversation.js';
import type { Handoffs } from './handoffs.js';
import type { Live } from './live.js';
import type { SessionHooks } from './session-hooks.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SessionStorage } from './session-storage.js';

export interface FirstConversationInput {
  options: AgentSessionOptions;
  storage: SessionStorage;
  conversation: ConversationFactory;
  handoffs: Pick<Handoffs, 'restoreAgent'>;
  hooks: SessionHooks;
  live: Live;
  warnings: string[];
}

/**
 * Part 15: opens the first conversation (new, `resume` by id, or `continue` the newest) as
 * `live.session`, back with the agent that held it, and runs SessionStart hooks, whose output is
 * context for the first turn.
 */
export async function openFirstConversation(input: FirstConversationInput): Promise<void> {
  const { options, live, warnings } = input;
  const { store } = input.storage;
  let resumeId: string | undefined;
  if (options.resume && store) resumeId = store.resolveId(options.resume);
  else if (options.continue && store) {
    resumeId = store.newest()?.id;
    if (!resumeId) warnings.push('No earlier session in this workspace; starting a new one.');
  }
  const how = resumeId ? { fork: options.forkSession === true, ...(options.resumeSessionAt ? { at: options.resumeSessionAt } : {}) } : undefined;
  live.session = await input.conversation(resumeId, undefined, how);
  await input.handoffs.restoreAgent(live.session);
  // What hooks want the user to know: warnings before the first turn, the front end's channel after.
  const hooks = input.hooks.runner;
  if (hooks.has('SessionStart')) {
    const started = await hooks.sessionStart(resumeId ? 'resume' : 'startup');
    warnings.push(...started.userMessages);
    live.startContext = started.context;
  }
}
