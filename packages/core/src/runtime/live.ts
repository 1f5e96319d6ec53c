import type { ChatSession } from '../agent/chat-session.js';
import type { AskUser, PermissionMode } from '../permissions/types.js';
import type { ConversationLog, ConversationLogs } from './conversation-logs.js';
import type { AgentSessionOptions } from './session-options.js';

/**
 * What changes while a session lives, read late by the parts built before it existed: the live
 * conversation (replaced by /clear and /resume) and its log, the permission mode, the interactive
 * asker and the SessionStart context waiting for the next turn. Parts hold this object and read it
 * when called, never copy a field at build time.
 */
export interface Live {
  /** The live conversation; reading it before the first conversation is open is a bug and throws. */
  session: ChatSession;
  /** Each conversation's log (subagent transcripts, its agent, its session file's meta), set where conversations open. */
  readonly logs: ConversationLogs;
  /** The live conversation's log. */
  readonly log: ConversationLog | undefined;
  permissionMode: PermissionMode;
  /** The interactive front end's prompt (`setAsker`). */
  asker: AskUser | undefined;
  /** SessionStart hooks' context for the next turn: set by startup, /clear, /resume and compaction. */
  startContext: string | undefined;
  /** With telemetry on: the running turn's span as W3C trace context, for the hooks it runs. */
  traceparent: string | undefined;
  /** Hands the waiting SessionStart context to a turn, once. */
  takeStartContext(): string | undefined;
  /** What hooks want the user to know: the front end's channel (`onHookMessage`). */
  notices(messages: string[]): void;
  notify(outcome: Promise<{ userMessages: string[] }>): Promise<void>;
  /** A note for the person: the front end's channel when it has one (one-shot's stderr, the editor's log), else a notice in the conversation (the chat's transcript). */
  tell(text: string): void;
}

export interface LiveInput extends Pick<AgentSessionOptions, 'onHookMessage'> {
  /** The settings' permission mode, until the front end sets another. */
  permissionMode: PermissionMode;
}

/** Part: the late-bound state above. */
export function createLive(input: LiveInput): Live {
  let session: ChatSession | undefined;
  const logs: ConversationLogs = new WeakMap();
  const notices = (messages: string[]) => messages.forEach((message) => input.onHookMessage?.(message));
  const live: Live = {
    get session(): ChatSession {
      if (!session) throw new Error('The conversation is read before it was opened.');
      return session;
    },
    set session(next: ChatSession) {
      session = next;
    },
    logs,
    get log() {
      return session && logs.get(session);
    },
    permissionMode: input.permissionMode,
    asker: undefined,
    startContext: undefined,
    traceparent: undefined,
    takeStartContext() {
      const context = live.startContext;
      live.startContext = undefined;
      return context;
    },
    notices,
    notify: async (outcome) => notices((await outcome).userMessages),
    tell(text) {
      if (input.onHookMessage) input.onHookMessage(text);
      else session?.emit({ type: 'notice', text });
    },
  };
  return live;
}
