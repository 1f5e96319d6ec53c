import type { ContentPart, LlmMessage, ProviderFailure, ProviderMetadata, Reasoning, StopReason, ToolCall, Usage } from '../llm/types.js';
import type { ToolDetails } from '../tools/tool.js';

/**
 * Agent messages are what the session records and the UI shows. They are richer than LLM messages
 * (notes, statuses, details) and become LLM messages only at the boundary, in `convertToLlm`.
 */
export interface UserMessage {
  role: 'user';
  content: string;
  /** Images or other parts sent with the text (an SDK program's content blocks). */
  parts?: ContentPart[];
  /** Stable id of this message (the SDK's uuid); set when the message is created. */
  uuid?: string;
  /** Why this message exists: typed by the user, queued while the agent worked, a loaded skill... */
  origin?: 'prompt' | 'steering' | 'follow_up' | 'skill' | 'command';
  /** What the UI shows instead of the full content (e.g. `/review 42` for an expanded command). */
  display?: string;
  timestamp: number;
}

export interface AssistantMessage {
  role: 'assistant';
  /** Stable id of this message, as `message.id` in SDK shapes (`msg_...`). */
  id?: string;
  /** Stable uuid of this message, as `uuid` in SDK shapes (resumeSessionAt names it); set when the message is created. */
  uuid?: string;
  content: string;
  toolCalls: ToolCall[];
  /** The model's thinking, with the signatures its provider needs back (kept in the session file). */
  reasoning?: Reasoning[];
  stopReason?: StopReason;
  usage?: Usage;
  /** The model asked for. */
  model?: string;
  /** The model the server says answered, when it differs from `model` (an alias resolved to a snapshot). */
  responseModel?: string;
  provider?: string;
  failure?: ProviderFailure;
  timestamp: number;
}

export type ToolStatus = 'ok' | 'error' | 'denied' | 'skipped' | 'interrupted';

export interface ToolResultMessage {
  role: 'tool';
  /** Stable uuid of this message, as `uuid` in SDK shapes; set when the message is created. */
  uuid?: string;
  toolCallId: string;
  toolName: string;
  content: string | ContentPart[];
  isError: boolean;
  status: ToolStatus;
  details?: ToolDetails;
  metadata?: ProviderMetadata;
  timestamp: number;
}

/** App-level notes. `compaction` summaries reach the model; the others are for people. */
export interface NoteMessage {
  role: 'note';
  kind: 'interrupted' | 'error' | 'compaction' | 'info';
  text: string;
  /** For compaction: the estimated size of the context it replaced, in tokens. */
  tokensBefore?: number;
  /** For compaction: how many messages just before the note stay in the model's view after the summary. */
  keptMessages?: number;
  /** For compaction: `/compact` by hand, or automatic when the context filled up. */
  trigger?: 'manual' | 'auto';
  /**
   * For compaction: a line the person is told once, when the model's summary failed and Beans
   * shortened the turns itself (chat shows it as a warning; stream-json as `system/warning`).
   */
  notice?: string;
  /**
   * For compaction: what the summary request(s) behind this note cost, so a resumed session's totals
   * still count them (the `usage` event that reported them is not stored).
   */
  usage?: Usage;
  timestamp: number;
}

export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage | NoteMessage;

export type AgentStopReason = 'completed' | 'max_turns' | 'max_budget' | 'error' | 'aborted' | 'loop';

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

export interface UsageTotals {
  /** Input tokens billed at the full price; cache reads and writes are counted apart, as providers report them. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (billed at its discount). */
  cacheReadTokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic bills them at 1.25x). */
  cacheWriteTokens: number;
  costUsd: number;
  /** False once any turn's price was unknown. */
  costKnown: boolean;
}

export interface AgentRunResult {
  stopReason: AgentStopReason;
  failure?: ProviderFailure;
  /** Text of the last assistant message. */
  finalText: string;
  turns: number;
  usage: UsageTotals;
  apiDurationMs: number;
  permissionDenials: PermissionDenial[];
  /** With stopReason `loop`: what repeated. */
  loop?: string;
}

export type AgentEvent =
  | { type: 'agent_start' }
  | { type: 'agent_end'; result: AgentRunResult }
  | { type: 'turn_start'; turn: number }
  | { type: 'turn_end'; turn: number; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: 'message_start'; message: AgentMessage }
  /** Streaming progress: `delta` is new answer text; `toolCall` is a call that just arrived whole. */
  | { type: 'message_update'; message: AssistantMessage; delta: string; toolCall?: ToolCall; thinking?: string }
  | { type: 'message_end'; message: AgentMessage }
  | { type: 'tool_execution_start'; call: ToolCall; summary: string }
  | { type: 'tool_execution_update'; call: ToolCall; text: string }
  | { type: 'tool_execution_end'; call: ToolCall; result: ToolResultMessage }
  /** `restart`: the partial answer streamed so far was discarded; it starts again. */
  | { type: 'retry'; attempt: number; delayMs: number; failure: ProviderFailure; restart?: boolean; maxAttempts?: number }
  /** An event of a subagent that the `task` call `toolCallId` runs, forwarded into its parent's run. */
  | { type: 'subagent'; toolCallId: string; agent: string; event: AgentEvent }
  /** The conversation passed to another agent (a `handoff` call, `match:` routing, or `/agent`). */
  | { type: 'handoff'; from: string; to: string; reason: string; trigger: 'tool' | 'match' | 'command' }
  /**
   * A request made beside the conversation (a compaction summary): its tokens and cost count in the
   * session's usage, the run's usage and `--max-budget-usd` like any answer's.
   */
  | { type: 'usage'; usage: Usage; model: string; purpose: 'compaction' | 'side-question' | 'goal-check' }
  /** Something the person should know that is not part of the answer (a provider's `notice`). */
  | { type: 'notice'; text: string }
  /** The session's queue of messages typed while the agent works changed. */
  | { type: 'queue_update'; queued: readonly QueuedMessage[] };

/** A message waiting for the agent: steering is read after the current tool batch, a follow-up when the agent would stop. */
export interface QueuedMessage {
  id: string;
  /** What the person typed: the queue shows it, and an interrupt puts it back in the input. */
  text: string;
  kind: 'steering' | 'follow_up';
  /** What the agent reads, when it is more than `text` (attached files, a command's expansion). */
  message?: UserMessage;
}

export type AgentEventSink = (event: AgentEvent) => void;

export type { LlmMessage };
