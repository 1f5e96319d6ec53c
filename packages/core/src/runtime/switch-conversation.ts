import type { ChatSession } from '../agent/chat-session.js';
import type { ConversationFactory } from './conversation.js';
import type { Handoffs } from './handoffs.js';
import type { Live } from './live.js';
import type { SessionHooks } from './session-hooks.js';

export interface SwitchConversationInput {
  conversation: ConversationFactory;
  handoffs: Pick<Handoffs, 'controller' | 'restoreAgent'>;
  hooks: Pick<SessionHooks, 'runner'>;
  live: Live;
  /** `onSessionChange` listeners of the front end. */
  listeners: Set<(session: ChatSession) => void>;
}

/** The session's `newConversation` (/clear, /resume): replaces the live conversation and tells the hooks. */
export function createSwitchConversation(input: SwitchConversationInput): (resumeId?: string, model?: string) => Promise<ChatSession> {
  const { live, handoffs } = input;
  const hooks = input.hooks.runner;
  return async (id, nextModel = live.session.model) => {
    const { session: next, warnings } = await input.conversation(id, nextModel);
    if (!id) await live.notify(hooks.sessionEnd('clear'));
    live.session.close();
    live.session = next;
    handoffs.controller.reset();
    // The session's warnings were shown when it started: what this one finds goes to the front end's channel.
    live.notices([...warnings, ...(await handoffs.restoreAgent(next))]);
    for (const listener of input.listeners) listener(next);
    // SessionStart again: `clear` for a fresh conversation, `resume` for a stored one.
    if (hooks.has('SessionStart')) {
      const started = await hooks.sessionStart(id ? 'resume' : 'clear');
      live.notices(started.userMessages);
      live.startContext = started.context;
    }
    return next;
  };
}
