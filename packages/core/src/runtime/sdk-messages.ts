import type { AgentEvent, AgentRunResult, AssistantMessage, ToolResultMessage, UserMessage } from '../agent/types.js';
import type { ContentPart, StopReason, ToolCall, Usage } from '../llm/types.js';
import type { PermissionMode } from '../permissions/types.js';
import { sdkPermissionMode } from './permission-mode.js';
import type { StructuredResult } from './run-turn.js';
import { wireNames, type ToolNames, type WireNames } from './wire-names.js';
import type {
  SdkAssistantMessage,
  SdkContentBlock,
  SdkInitMessage,
  SdkMessage,
  SdkModelUsage,
  SdkResultMessage,
  SdkResultSubtype,
  SdkStopReason,
  SdkStreamEvent,
  SdkToolResultContent,
  SdkUsage,
  SdkUserMessage,
} from './sdk-types.js';
import { randomUuid } from '../random-ids.js';

/** What `system/init` reports about a session. */
export interface SessionInitInfo {
  cwd: string;
  model: string;
  provider: string;
  tools: string[];
  permissionMode: PermissionMode;
  slashCommands: string[];
  agents: string[];
  skills: string[];
  plugins: { name: string; path: string; version?: string }[];
  mcpServers?: { name: string; status: string }[];
  version: string;
}

export interface SdkMessageMapperOptions {
  sessionId: string;
  /** Emit `stream_event` messages as text and tool input stream in. */
  includePartialMessages?: boolean;
  /** Set on every message of a subagent: the id of the task call that runs it. */
  parentToolUseId?: string | null;
  /** Context window and output limit per model, for `modelUsage`. */
  modelLimits?: (model: string) => { contextWindow?: number; maxOutputTokens?: number };
  /** `claude`: tool calls, `system/init`'s tools and permission denials in Claude Code's names and fields. */
  toolNames?: ToolNames;
  /** Claude Code's paths are absolute: relative ones are resolved against this root. */
  workspaceRoot?: string;
  /**
   * The user's own messages too (Claude Code's `--replay-user-messages`): what was typed, as it shows
   * (an expanded command as its `/name args`), for clients that draw the whole conversation.
   */
  replayUserMessages?: boolean;
}

export interface RunSummary {
  result: AgentRunResult;
  durationMs: number;
  /** Why the run failed, in one or two sentences (becomes `errors`). */
  error?: string;
  /** With an output schema: the validated answer, or why none validated (`error_max_structured_output_retries`). */
  structured?: StructuredResult;
}

/**
 * Turns session events into Claude Agent SDK messages: the one mapping behind `-o stream-json`,
 * `query()` and the SDK subprocess protocol. Stateful per session: it tracks the partial-message
 * blocks in flight and the usage per model since the last result.
 */
export class SdkMessageMapper {
  private modelUsage: Record<string, SdkModelUsage> = {};
  private lastStopReason: SdkStopReason | null = null;
  private openBlock: { index: number; kind: 'text' } | undefined;
  private blockCount = 0;
  /** The assistant message streaming now (for partial messages). */
  private streaming: AssistantMessage | undefined;
  /** One mapper per running subagent, by the id of the task call that runs it. */
  private readonly children = new Map<string, SdkMessageMapper>();
  /** Tool calls running now: an interrupt then is one "for tool use", as Claude Code says it. */
  private runningTools = 0;
  /** A call of this turn ended interrupted: its end comes before the turn's, so runningTools alone is back at 0 by then. */
  private toolInterrupted = false;

  private readonly wire: WireNames;

  constructor(private readonly options: SdkMessageMapperOptions) {
    this.wire = wireNames(options.toolNames, options.workspaceRoot);
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  init(info: SessionInitInfo): SdkInitMessage {
    return {
      type: 'system',
      subtype: 'init',
      session_id: this.options.sessionId,
      uuid: randomUuid(),
      cwd: info.cwd,
      model: info.model,
      provider: info.provider,
      tools: info.tools.map((name) => this.wire.name(name)),
      mcp_servers: info.mcpServers ?? [],
      permissionMode: sdkPermissionMode(info.permissionMode),
      slash_commands: info.slashCommands,
      agents: info.agents,
      skills: info.skills,
      plugins: info.plugins,
      apiKeySource: 'none',
      claude_code_version: info.version,
      output_style: 'default',
    };
  }

  /** The messages one session event becomes (often none). */
  event(event: AgentEvent): SdkMessage[] {
    switch (event.type) {
      case 'message_start':
        if (event.message.role !== 'assistant' || !this.options.includePartialMessages) return [];
        this.blockCount = 0;
        this.openBlock = undefined;
        this.streaming = event.message;
        return [this.partial({ type: 'message_start', message: this.assistantBody(event.message, [], null) })];
      case 'message_update':
        return this.options.includePartialMessages ? this.partialUpdate(event.delta, event.toolCall) : [];
      case 'retry': {
        // The partial answer was dropped: close it, and a new message starts when text comes again.
        if (!event.restart || !this.options.includePartialMessages) return [];
        const out: SdkMessage[] = [];
        if (this.openBlock) out.push(this.partial({ type: 'content_block_stop', index: this.openBlock.index }));
        this.openBlock = undefined;
        this.blockCount = 0;
        out.push(this.partial({ type: 'message_stop' }));
        if (this.streaming) out.push(this.partial({ type: 'message_start', message: this.assistantBody(this.streaming, [], null) }));
        return out;
      }
      case 'message_end': {
        const message = event.message;
        if (message.role === 'assistant') return this.assistantEnd(message);
        if (message.role === 'tool') return [this.toolResult(message)];
        if (message.role === 'user') return this.options.replayUserMessages ? [this.userPrompt(message)] : [];
        if (message.role === 'note' && message.kind === 'compaction') {
          const boundary: SdkMessage = {
            type: 'system',
            subtype: 'compact_boundary',
            compact_metadata: { trigger: message.trigger ?? 'manual', pre_tokens: message.tokensBefore ?? 0 },
            uuid: randomUuid(),
            session_id: this.options.sessionId,
          };
          // A summary the model failed to give: said once, beside the boundary.
          if (!message.notice) return [boundary];
          return [boundary, { type: 'system', subtype: 'warning', message: message.notice, uuid: randomUuid(), session_id: this.options.sessionId }];
        }
        return [];
      }
      case 'usage':
        this.addModelUsage(event.model, event.usage);
        return [];
      case 'subagent':
        return this.subagentEvent(event.toolCallId, event.event);
      case 'tool_execution_start':
        this.runningTools += 1;
        return [];
      case 'tool_execution_end':
        this.runningTools = Math.max(0, this.runningTools - 1);
        if (event.result.status === 'interrupted') this.toolInterrupted = true;
        this.children.delete(event.call.id);
        return [];
      case 'agent_end': {
        const during = this.runningTools > 0 || this.toolInterrupted;
        this.runningTools = 0;
        this.toolInterrupted = false;
        if (event.result.stopReason !== 'aborted' || this.options.parentToolUseId) return [];
        // Claude Code marks an interrupted turn with this user message before its result.
        const text = during ? '[Request interrupted by user for tool use]' : '[Request interrupted by user]';
        return [
          {
            type: 'user',
            message: { role: 'user', content: [{ type: 'text', text }] },
            parent_tool_use_id: null,
            uuid: randomUuid(),
            session_id: this.options.sessionId,
          },
        ];
      }
      case 'handoff':
        return [
          {
            type: 'system',
            subtype: 'handoff',
            from: event.from,
            to: event.to,
            reason: event.reason,
            trigger: event.trigger,
            uuid: randomUuid(),
            session_id: this.options.sessionId,
          },
        ];
      default:
        return [];
    }
  }

  /**
   * A subagent's event as its own messages, each with `parent_tool_use_id` = the task call's id (its
   * prompt too, as Claude Code sends it). Its usage joins this session's `modelUsage`.
   */
  private subagentEvent(toolCallId: string, event: AgentEvent): SdkMessage[] {
    let child = this.children.get(toolCallId);
    if (!child) {
      child = new SdkMessageMapper({ ...this.options, includePartialMessages: false, parentToolUseId: toolCallId });
      this.children.set(toolCallId, child);
    }
    if (event.type === 'usage') this.addModelUsage(event.model, event.usage);
    if (event.type !== 'message_end') return child.event(event);
    const message = event.message;
    if (message.role === 'assistant' && message.usage && message.model) this.addModelUsage(message.model, message.usage);
    if (message.role !== 'user') return child.event(event);
    return [
      {
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text: message.content }] },
        parent_tool_use_id: toolCallId,
        uuid: message.uuid ?? randomUuid(),
        session_id: this.options.sessionId,
      },
    ];
  }

  /** The `result` message of a finished run; usage per model starts again after it. */
  result(summary: RunSummary): SdkResultMessage {
    const { result } = summary;
    const structured = summary.structured;
    const subtype = structured && 'error' in structured ? 'error_max_structured_output_retries' : resultSubtype(result);
    const message: SdkResultMessage = {
      type: 'result',
      subtype,
      is_error: subtype !== 'success',
      result: result.finalText,
      session_id: this.options.sessionId,
      uuid: randomUuid(),
      num_turns: result.turns,
      duration_ms: summary.durationMs,
      duration_api_ms: result.apiDurationMs,
      stop_reason: this.lastStopReason,
      // The whole run, subagents included, like modelUsage: cache reads and writes too.
      usage: sdkUsage(result.usage),
      modelUsage: this.modelUsage,
      total_cost_usd: roundCost(result.usage.costUsd),
      permission_denials: result.permissionDenials.map((denial) => ({
        ...denial,
        tool_name: this.wire.name(denial.tool_name),
        tool_input: this.wire.input(denial.tool_name, denial.tool_input),
      })),
    };
    if (structured && 'value' in structured) message.structured_output = structured.value;
    if (subtype !== 'success') message.errors = [summary.error ?? (structured && 'error' in structured ? structured.error : defaultError(result))];
    this.modelUsage = {};
    this.lastStopReason = null;
    return message;
  }

  private assistantEnd(message: AssistantMessage): SdkMessage[] {
    const out: SdkMessage[] = [];
    const stopReason = sdkStopReason(message.stopReason);
    if (this.options.includePartialMessages) {
      if (this.openBlock) out.push(this.partial({ type: 'content_block_stop', index: this.openBlock.index }));
      this.openBlock = undefined;
      const usage = message.usage ?? { inputTokens: 0, outputTokens: 0 };
      out.push(
        this.partial({
          type: 'message_delta',
          delta: { stop_reason: stopReason, stop_sequence: null, stop_details: null, container: null },
          usage: {
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
            cache_read_input_tokens: usage.cacheReadTokens ?? 0,
            server_tool_use: null,
            output_tokens_details: null,
            iterations: null,
            fallback_credit: null,
          },
          context_management: null,
        }),
      );
      out.push(this.partial({ type: 'message_stop' }));
    }
    if (message.usage && message.model) this.addModelUsage(message.model, message.usage);
    if (stopReason) this.lastStopReason = stopReason;
    const content: SdkContentBlock[] = [];
    for (const thought of message.reasoning ?? []) {
      const signature = thought.metadata?.anthropic?.signature;
      content.push({ type: 'thinking', thinking: thought.text, signature: typeof signature === 'string' ? signature : '' });
    }
    if (message.content) content.push({ type: 'text', text: message.content, citations: null });
    for (const call of message.toolCalls)
      content.push({ type: 'tool_use', id: call.id, name: this.wire.name(call.name), input: this.wire.input(call.name, call.arguments ?? {}) });
    if (content.length === 0) return out;
    const assistant: SdkAssistantMessage = {
      type: 'assistant',
      message: this.assistantBody(message, content, stopReason),
      parent_tool_use_id: this.options.parentToolUseId ?? null,
      // The stored message's own uuid, which the SDK's resumeSessionAt and rewindFiles name.
      uuid: message.uuid ?? randomUuid(),
      session_id: this.options.sessionId,
    };
    out.push(assistant);
    return out;
  }

  private assistantBody(message: AssistantMessage, content: SdkContentBlock[], stopReason: SdkStopReason | null): SdkAssistantMessage['message'] {
    return {
      id: message.id ?? `msg_${randomUuid().replaceAll('-', '')}`,
      type: 'message',
      role: 'assistant',
      model: message.model ?? '',
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      stop_details: null,
      usage: sdkUsage(message.usage ?? { inputTokens: 0, outputTokens: 0 }),
      container: null,
      context_management: null,
      diagnostics: null,
    };
  }

  private partialUpdate(delta: string, toolCall: ToolCall | undefined): SdkMessage[] {
    const out: SdkMessage[] = [];
    if (delta) {
      if (!this.openBlock) {
        this.openBlock = { index: this.blockCount++, kind: 'text' };
        out.push(this.partial({ type: 'content_block_start', index: this.openBlock.index, content_block: { type: 'text', text: '', citations: null } }));
      }
      out.push(this.partial({ type: 'content_block_delta', index: this.openBlock.index, delta: { type: 'text_delta', text: delta } }));
    }
    if (toolCall) {
      if (this.openBlock) out.push(this.partial({ type: 'content_block_stop', index: this.openBlock.index }));
      this.openBlock = undefined;
      const index = this.blockCount++;
      out.push(
        this.partial({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: toolCall.id, name: this.wire.name(toolCall.name), input: {} },
        }),
      );
      out.push(
        this.partial({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(this.wire.input(toolCall.name, toolCall.arguments ?? {})) },
        }),
      );
      out.push(this.partial({ type: 'content_block_stop', index }));
    }
    return out;
  }

  private toolResult(message: ToolResultMessage): SdkUserMessage {
    return {
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: message.toolCallId, content: toolResultContent(message.content), is_error: message.isError }],
      },
      parent_tool_use_id: this.options.parentToolUseId ?? null,
      uuid: message.uuid ?? randomUuid(),
      session_id: this.options.sessionId,
    };
  }

  private userPrompt(message: UserMessage): SdkUserMessage {
    return {
      type: 'user',
      message: { role: 'user', content: message.display ?? message.content },
      parent_tool_use_id: this.options.parentToolUseId ?? null,
      uuid: message.uuid ?? randomUuid(),
      session_id: this.options.sessionId,
    };
  }

  private partial(event: SdkStreamEvent): SdkMessage {
    return { type: 'stream_event', event, parent_tool_use_id: this.options.parentToolUseId ?? null, uuid: randomUuid(), session_id: this.options.sessionId };
  }

  private addModelUsage(model: string, usage: Usage): void {
    const limits = this.options.modelLimits?.(model) ?? {};
    const entry = (this.modelUsage[model] ??= {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0,
      contextWindow: limits.contextWindow ?? 0,
      maxOutputTokens: limits.maxOutputTokens ?? 0,
    });
    entry.inputTokens += usage.inputTokens;
    entry.outputTokens += usage.outputTokens;
    entry.cacheReadInputTokens += usage.cacheReadTokens ?? 0;
    entry.cacheCreationInputTokens += usage.cacheWriteTokens ?? 0;
    entry.costUSD = roundCost(entry.costUSD + (usage.costUsd ?? 0));
  }
}

export function resultSubtype(result: AgentRunResult): SdkResultSubtype {
  switch (result.stopReason) {
    case 'completed':
      return 'success';
    case 'max_turns':
      return 'error_max_turns';
    case 'max_budget':
      return 'error_max_budget_usd';
    default:
      return 'error_during_execution';
  }
}

function defaultError(result: AgentRunResult): string {
  if (result.failure) return result.failure.message;
  if (result.stopReason === 'aborted') return 'Interrupted.';
  if (result.stopReason === 'loop') return `loop detected: ${result.loop ?? 'the agent repeated itself'}`;
  if (result.stopReason === 'max_turns') return `Stopped after ${result.turns} turns (the turn limit).`;
  if (result.stopReason === 'max_budget') return `Stopped at $${result.usage.costUsd.toFixed(4)} (the budget).`;
  return 'The run failed.';
}

export function sdkStopReason(reason: StopReason | undefined): SdkStopReason | null {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'tool_use':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    default:
      return null;
  }
}

export function sdkUsage(usage: Pick<Usage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>): SdkUsage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
    cache_read_input_tokens: usage.cacheReadTokens ?? 0,
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    output_tokens_details: { thinking_tokens: 0 },
    service_tier: 'standard',
    speed: 'standard',
    inference_geo: '',
    iterations: [],
    fallback_credit: null,
  };
}

function toolResultContent(content: string | ContentPart[]): SdkToolResultContent {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type !== 'image'
      ? { type: 'text' as const, text: part.text }
      : { type: 'image' as const, source: { type: 'base64' as const, media_type: part.mimeType, data: part.data } },
  );
}

function roundCost(cost: number): number {
  return Math.round(cost * 1e8) / 1e8;
}

/** The `result` of a run that never started (bad settings, no key): an error with zero usage. */
export function startupFailureResult(error: string, sessionId = ''): SdkResultMessage {
  return {
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    result: '',
    session_id: sessionId,
    uuid: randomUuid(),
    num_turns: 0,
    duration_ms: 0,
    duration_api_ms: 0,
    stop_reason: null,
    usage: sdkUsage({ inputTokens: 0, outputTokens: 0 }),
    modelUsage: {},
    total_cost_usd: 0,
    permission_denials: [],
    errors: [error],
  };
}
