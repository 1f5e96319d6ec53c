import type { AgentMessage } from '../agent/types.js';

export const SESSION_FORMAT_VERSION = 1;

/** First line of every session file. */
export interface SessionHeader {
  type: 'session';
  id: string;
  version: number;
  /** Where the user started Beans. */
  cwd: string;
  workspaceRoot: string;
  provider: string;
  model: string;
  /** ISO 8601. */
  startedAt: string;
  /** The branch checked out when the session began (as Claude Code records `gitBranch`): the resume picker filters by it. */
  gitBranch?: string;
}

/** Changes to the session itself rather than the conversation, recorded so a resume restores them. */
export type SessionMetaInput =
  | { kind: 'model'; provider: string; model: string }
  | { kind: 'sop'; sop: string }
  | { kind: 'agent'; agent: string }
  /** The conversation was rewound: the user message `uuid` and everything after it are gone from it (the lines stay in the file). */
  | { kind: 'rewind'; uuid: string }
  /** Deferred tools the model loaded with tool_search: a resume declares them again. */
  | { kind: 'tools'; loaded: string[] }
  /** The name the user gave the session (`/rename`); the resume picker shows and searches it. */
  | { kind: 'title'; title: string };
export type SessionMeta = SessionMetaInput & { type: 'meta'; timestamp: number };

export interface SessionMessageRecord {
  type: 'message';
  message: AgentMessage;
}

/** A message of a subagent's conversation, linked to the `task` call of the parent that ran it. */
interface SessionSubagentRecord {
  type: 'subagent';
  toolCallId: string;
  agent: string;
  message: AgentMessage;
}

/** A subagent's whole conversation, as a resumed session gets it back. */
export interface SubagentTranscript {
  agent: string;
  messages: AgentMessage[];
}

export type SessionRecord = SessionHeader | SessionMessageRecord | SessionMeta | SessionSubagentRecord;

export interface LoadedSession {
  header: SessionHeader;
  path: string;
  messages: AgentMessage[];
  meta: SessionMeta[];
  /** Subagents' conversations by the id of the task call that ran them; never part of `messages`. */
  subagents: Map<string, SubagentTranscript>;
  /** The provider and model in use when the session stopped (the header, then model switches). */
  provider: string;
  model: string;
  /** The last SOP set, if any. */
  sop?: string;
  /** Damaged or unreadable lines that were skipped; show them, then carry on. */
  warnings: string[];
}

export interface SessionSummary {
  id: string;
  path: string;
  /** ISO 8601, from the header. */
  startedAt: string;
  /** Last write (file mtime), ISO 8601. */
  lastActivity: string;
  /** Assistant messages. */
  turns: number;
  /** Messages the user sent (typed, queued or a command; loaded skills are not counted): the conversation's turns as people count them. */
  prompts: number;
  /** The first prompt the user typed, on one line, cut to about 80 characters ('' when none yet). */
  firstPrompt: string;
  /** The newest `/rename`, when the session was named. */
  title?: string;
  /** The workspace the session belongs to (its header's). */
  workspaceRoot: string;
  gitBranch?: string;
  provider: string;
  model: string;
  messageCount: number;
}
