import type { ChatSession } from '../agent/chat-session.js';
import type { AgentMessage } from '../agent/types.js';
import type { SessionMetaInput, SubagentTranscript } from '../session/index.js';

/**
 * What each conversation keeps beyond its messages: its subagents' transcripts (restored on resume),
 * the agent it was handed to, and how both reach its session file.
 */
export interface ConversationLog {
  subagents: Map<string, SubagentTranscript>;
  /** What the session had spent when this run began: the budget is per run. */
  runStartCostUsd: number;
  restoredAgent?: string;
  recordMeta(change: SessionMetaInput): void;
  recordSubagent(toolCallId: string, agent: string, message: AgentMessage): void;
}

/** Each conversation's log, by conversation (`live.logs`): a replaced one's goes with it. */
export type ConversationLogs = WeakMap<ChatSession, ConversationLog>;
