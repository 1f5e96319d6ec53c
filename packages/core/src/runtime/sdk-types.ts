/**
 * The messages Beans emits in `-o stream-json`, `query()` and the SDK subprocess protocol: the Claude
 * Agent SDK's `SDKMessage` shapes (checked against the SDK's own types in a test), written out here
 * so core does not depend on the SDK package.
 */
import type { SdkPermissionMode } from './permission-mode.js';

/** Anthropic's usage object with every field present (0 or null when Beans cannot know). */
export interface SdkUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number };
  server_tool_use: { web_search_requests: number; web_fetch_requests: number };
  output_tokens_details: { thinking_tokens: number };
  service_tier: 'standard';
  speed: 'standard';
  inference_geo: string;
  iterations: [];
  fallback_credit: null;
}

export type SdkContentBlock =
  | { type: 'text'; text: string; citations: null }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export type SdkStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';

export interface SdkAssistantMessage {
  type: 'assistant';
  message: {
    id: string;
    type: 'message';
    role: 'assistant';
    model: string;
    content: SdkContentBlock[];
    stop_reason: SdkStopReason | null;
    stop_sequence: null;
    stop_details: null;
    usage: SdkUsage;
    container: null;
    context_management: null;
    diagnostics: null;
  };
  parent_tool_use_id: string | null;
  uuid: string;
  session_id: string;
}

export type SdkToolResultContent =
  string | ({ type: 'text'; text: string } | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } })[];

export interface SdkUserMessage {
  type: 'user';
  message: {
    role: 'user';
    content: string | ({ type: 'text'; text: string } | { type: 'tool_result'; tool_use_id: string; content: SdkToolResultContent; is_error: boolean })[];
  };
  parent_tool_use_id: string | null;
  uuid: string;
  session_id: string;
}

export interface SdkInitMessage {
  type: 'system';
  subtype: 'init';
  session_id: string;
  uuid: string;
  cwd: string;
  model: string;
  /** Beans' own addition: the provider serving the model. */
  provider: string;
  tools: string[];
  mcp_servers: { name: string; status: string }[];
  permissionMode: Exclude<SdkPermissionMode, 'dontAsk'> | 'dontAsk';
  slash_commands: string[];
  agents: string[];
  skills: string[];
  plugins: { name: string; path: string; version?: string }[];
  apiKeySource: 'none';
  claude_code_version: string;
  output_style: 'default';
}

export interface SdkStatusMessage {
  type: 'system';
  subtype: 'status';
  status: null;
  permissionMode: Exclude<SdkPermissionMode, 'dontAsk'> | 'dontAsk';
  uuid: string;
  session_id: string;
}

export interface SdkCompactBoundaryMessage {
  type: 'system';
  subtype: 'compact_boundary';
  compact_metadata: { trigger: 'manual' | 'auto'; pre_tokens: number };
  uuid: string;
  session_id: string;
}

/** Beans' own: something the person should know about the run that is not an error (told once). */
export interface SdkWarningMessage {
  type: 'system';
  subtype: 'warning';
  message: string;
  uuid: string;
  session_id: string;
}

/** Beans' own: the conversation passed to another agent (a `handoff` call, `match:` routing, `/agent`). */
export interface SdkHandoffMessage {
  type: 'system';
  subtype: 'handoff';
  from: string;
  to: string;
  reason: string;
  trigger: 'tool' | 'match' | 'command';
  uuid: string;
  session_id: string;
}

/** Claude Code's: a background task (a command, or a subagent) started. */
export interface SdkTaskStartedMessage {
  type: 'system';
  subtype: 'task_started';
  task_id: string;
  description: string;
  task_type: 'local_bash' | 'local_agent';
  is_backgrounded: true;
  uuid: string;
  session_id: string;
}

/** Claude Code's: a background task ended (completed: exit code 0; failed: any other end by itself; stopped: killed). */
export interface SdkTaskNotificationMessage {
  type: 'system';
  subtype: 'task_notification';
  task_id: string;
  status: 'completed' | 'failed' | 'stopped';
  output_file: string;
  summary: string;
  uuid: string;
  session_id: string;
}

export interface SdkModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
}

export type SdkResultSubtype = 'success' | 'error_max_turns' | 'error_max_budget_usd' | 'error_during_execution' | 'error_max_structured_output_retries';

export interface SdkResultMessage {
  type: 'result';
  subtype: SdkResultSubtype;
  is_error: boolean;
  result: string;
  session_id: string;
  uuid: string;
  num_turns: number;
  duration_ms: number;
  duration_api_ms: number;
  stop_reason: string | null;
  usage: SdkUsage;
  modelUsage: Record<string, SdkModelUsage>;
  total_cost_usd: number;
  permission_denials: { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> }[];
  /** Present on every error result. */
  errors?: string[];
  /** With an output schema (`--json-schema`, `outputFormat`): the final answer as validated JSON. */
  structured_output?: unknown;
}

/** Anthropic's raw stream events, for `--include-partial-messages`. */
export type SdkStreamEvent =
  | { type: 'message_start'; message: SdkAssistantMessage['message'] }
  | { type: 'content_block_start'; index: number; content_block: SdkContentBlock }
  | { type: 'content_block_delta'; index: number; delta: { type: 'text_delta'; text: string } | { type: 'input_json_delta'; partial_json: string } }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: SdkStopReason | null; stop_sequence: null; stop_details: null; container: null };
      usage: {
        input_tokens: number;
        output_tokens: number;
        cache_creation_input_tokens: number;
        cache_read_input_tokens: number;
        server_tool_use: null;
        output_tokens_details: null;
        iterations: null;
        fallback_credit: null;
      };
      context_management: null;
    }
  | { type: 'message_stop' };

export interface SdkPartialAssistantMessage {
  type: 'stream_event';
  event: SdkStreamEvent;
  parent_tool_use_id: string | null;
  uuid: string;
  session_id: string;
}

export type SdkMessage =
  | SdkInitMessage
  | SdkStatusMessage
  | SdkCompactBoundaryMessage
  | SdkHandoffMessage
  | SdkWarningMessage
  | SdkTaskStartedMessage
  | SdkTaskNotificationMessage
  | SdkAssistantMessage
  | SdkUserMessage
  | SdkPartialAssistantMessage
  | SdkResultMessage;
