import { SeverityNumber, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { AgentEvent, AssistantMessage } from '../agent/types.js';
import { createBeansMetrics, type BeansMetrics } from './metrics.js';
import type { TelemetryInstruments, TelemetrySettings, ToolDecision } from './types.js';
import { builtin } from '../node-builtins.js';

export interface ObservedConversation {
  readonly id: string;
  readonly provider: string;
  subscribe(listener: (event: AgentEvent) => void): () => void;
}

export interface ObserverOptions {
  instruments: TelemetryInstruments;
  settings: TelemetrySettings;
  /** Attributes of every signal (session, user, version...). */
  attributes: Attributes;
  /** The context runs start in: a CI pipeline's span from TRACEPARENT, or the root. */
  parent: Context;
  /** The agent holding the conversation, for span names. */
  agentName: () => string;
  /** The top-level turn's span as W3C trace context when it starts; undefined when it ends. */
  onTurnContext?: (traceparent: string | undefined) => void;
  /** A workflow run this session serves, when there is one. */
  workflowRunId?: string;
}

/** One agent's run in progress: the top-level conversation or a subagent nested under its task call. */
interface RunState {
  agent: string;
  promptId: string;
  span?: Span;
  context: Context;
  startedAt: number;
  chat?: { span: Span; startedAt: number };
  tools: Map<string, { span: Span; context: Context; startedAt: number }>;
  children: Map<string, RunState>;
}

/**
 * Turns a conversation's events into signals, following the OpenTelemetry GenAI conventions: one
 * `invoke_agent` span per user turn, `chat <model>` per model call and `execute_tool <name>` per
 * tool call beneath it, subagents nested under the task call that ran them; `beans.*` metrics;
 * log events (`user_prompt`, `api_request`, `api_error`, `tool_decision`, `tool_result`,
 * `compaction`, `subagent`). Prompt text only when settings allow; file contents, command output
 * and keys never.
 */
export function createSessionObserver(options: ObserverOptions) {
  const { tracer, logger } = options.instruments;
  const metrics: BeansMetrics = createBeansMetrics(options.instruments.meter);
  const decisions = new Map<string, ToolDecision>();
  let sessionId = '';

  const attributesOf = (state: RunState, extra: Attributes = {}): Attributes => ({
    ...options.attributes,
    'session.id': sessionId,
    'prompt.id': state.promptId,
    ...(options.workflowRunId ? { 'workflow.run_id': options.workflowRunId } : {}),
    ...extra,
  });
  const emit = (name: string, state: RunState, body: Attributes, severity = SeverityNumber.INFO) =>
    logger.emit({
      eventName: name,
      severityNumber: severity,
      body: name,
      attributes: attributesOf(state, { 'event.name': name, 'event.timestamp': new Date().toISOString(), ...body }),
      context: state.context,
    });

  const newRun = (agent: string, parent: Context): RunState => ({
    agent,
    promptId: builtin('node:crypto').randomUUID(),
    context: parent,
    startedAt: Date.now(),
    tools: new Map(),
    children: new Map(),
  });

  const handle = (state: RunState, event: AgentEvent, provider: string, parent: Context): void => {
    switch (event.type) {
      case 'agent_start': {
        state.promptId = builtin('node:crypto').randomUUID();
        state.startedAt = Date.now();
        state.span = tracer.startSpan(
          `invoke_agent ${state.agent}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: attributesOf(state, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': state.agent, 'gen_ai.provider.name': provider }),
          },
          parent,
        );
        state.context = trace.setSpan(parent, state.span);
        if (state !== top) emit('subagent', state, { 'agent.name': state.agent, phase: 'start' });
        else options.onTurnContext?.(traceparentOf(state.span));
        return;
      }
      case 'message_end': {
        const message = event.message;
        if (message.role === 'user' && (message.origin === undefined || message.origin === 'prompt' || message.origin === 'command')) {
          emit('user_prompt', state, { prompt_length: message.content.length, ...(options.settings.logPrompts ? { prompt: message.content } : {}) });
        } else if (message.role === 'assistant') {
          endChat(state, message, provider);
        } else if (message.role === 'note' && message.kind === 'compaction') {
          emit('compaction', state, { trigger: message.trigger ?? 'auto', tokens_before: message.tokensBefore ?? 0 });
        }
        return;
      }
      case 'turn_start':
        state.chat = {
          startedAt: Date.now(),
          span: tracer.startSpan(
            'chat',
            { kind: SpanKind.CLIENT, attributes: attributesOf(state, { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider }) },
            state.context,
          ),
        };
        return;
      case 'retry':
        emit(
          'api_error',
          state,
          { status_code: event.failure.status ?? 0, error: event.failure.kind, attempt: event.attempt, retry_delay_ms: event.delayMs },
          SeverityNumber.WARN,
        );
        return;
      case 'tool_execution_start': {
        const server = /^mcp__([^_]+(?:_[^_]+)*?)__/.exec(event.call.name)?.[1];
        const span = tracer.startSpan(
          `execute_tool ${event.call.name}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: attributesOf(state, {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': event.call.name,
              'gen_ai.tool.call.id': event.call.id,
              ...(server ? { 'mcp.server.name': server } : {}),
            }),
          },
          state.context,
        );
        state.tools.set(event.call.id, { span, context: trace.setSpan(state.context, span), startedAt: Date.now() });
        return;
      }
      case 'tool_execution_end':
        endTool(state, event);
        return;
      case 'subagent': {
        let child = state.children.get(event.toolCallId);
        const toolContext = state.tools.get(event.toolCallId)?.context ?? state.context;
        if (!child) state.children.set(event.toolCallId, (child = newRun(event.agent, toolContext)));
        handle(child, event.event, provider, toolContext);
        return;
      }
      case 'agent_end': {
        const seconds = (Date.now() - state.startedAt) / 1000;
        if (state === top) {
          metrics.activeTime.add(seconds, options.attributes);
          options.onTurnContext?.(undefined);
        } else
          emit('subagent', state, {
            'agent.name': state.agent,
            phase: 'end',
            turns: event.result.turns,
            stop_reason: event.result.stopReason,
            duration_ms: Date.now() - state.startedAt,
          });
        for (const tool of state.tools.values()) tool.span.end();
        state.tools.clear();
        state.chat?.span.end();
        state.chat = undefined;
        if (event.result.stopReason === 'error') state.span?.setStatus({ code: SpanStatusCode.ERROR, message: event.result.failure?.message });
        state.span?.setAttributes({ 'beans.turns': event.result.turns, 'beans.stop_reason': event.result.stopReason });
        state.span?.end();
        state.span = undefined;
        return;
      }
      default:
        return;
    }
  };

  const endChat = (state: RunState, message: AssistantMessage, provider: string) => {
    const chat = state.chat;
    state.chat = undefined;
    const usage = message.usage;
    const model = message.model ?? 'unknown';
    const tokens = usage
      ? { input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens ?? 0, cacheCreation: usage.cacheWriteTokens ?? 0 }
      : undefined;
    if (chat) {
      chat.span.updateName(`chat ${model}`);
      chat.span.setAttributes({
        'gen_ai.request.model': model,
        'gen_ai.response.model': model,
        ...(message.stopReason ? { 'gen_ai.response.finish_reasons': [message.stopReason] } : {}),
        ...(tokens
          ? {
              'gen_ai.usage.input_tokens': tokens.input + tokens.cacheRead + tokens.cacheCreation,
              'gen_ai.usage.output_tokens': tokens.output,
              'gen_ai.usage.cache_read.input_tokens': tokens.cacheRead,
              'gen_ai.usage.cache_creation.input_tokens': tokens.cacheCreation,
            }
          : {}),
      });
      if (message.failure) chat.span.setStatus({ code: SpanStatusCode.ERROR, message: message.failure.message });
      chat.span.end();
    }
    const durationMs = chat ? Date.now() - chat.startedAt : 0;
    if (message.failure) {
      emit('api_error', state, { model, status_code: message.failure.status ?? 0, error: message.failure.kind, duration_ms: durationMs }, SeverityNumber.ERROR);
      return;
    }
    const labels = { ...options.attributes, model, provider };
    if (tokens) for (const [type, count] of Object.entries(tokens)) if (count > 0) metrics.tokens.add(count, { ...labels, type });
    if (usage?.costUsd) metrics.cost.add(usage.costUsd, labels);
    emit('api_request', state, {
      model,
      input_tokens: tokens?.input ?? 0,
      output_tokens: tokens?.output ?? 0,
      cache_read_tokens: tokens?.cacheRead ?? 0,
      cache_creation_tokens: tokens?.cacheCreation ?? 0,
      cost_usd: usage?.costUsd ?? 0,
      duration_ms: durationMs,
    });
  };

  const endTool = (state: RunState, event: Extract<AgentEvent, { type: 'tool_execution_end' }>) => {
    const { call, result } = event;
    const tool = state.tools.get(call.id);
    state.tools.delete(call.id);
    const durationMs = tool ? Date.now() - tool.startedAt : 0;
    if (tool) {
      if (result.isError) tool.span.setStatus({ code: SpanStatusCode.ERROR });
      tool.span.end();
    }
    const decision = decisions.get(call.id) ?? {
      toolName: call.name,
      toolUseId: call.id,
      decision: result.status === 'denied' ? 'reject' : 'accept',
      source: 'config',
    };
    decisions.delete(call.id);
    metrics.toolDecisions.add(1, { ...options.attributes, tool_name: call.name, decision: decision.decision, source: decision.source });
    emit('tool_decision', state, { tool_name: call.name, tool_use_id: call.id, decision: decision.decision, source: decision.source });
    if (result.status === 'denied') return;
    const size = typeof result.content === 'string' ? result.content.length : JSON.stringify(result.content).length;
    emit('tool_result', state, { tool_name: call.name, tool_use_id: call.id, success: !result.isError, duration_ms: durationMs, result_size_bytes: size });
    const details = result.details;
    if (details?.kind === 'diff') {
      if (details.added) metrics.linesOfCode.add(details.added, { ...options.attributes, type: 'added' });
      if (details.removed) metrics.linesOfCode.add(details.removed, { ...options.attributes, type: 'removed' });
    }
    if (details?.kind === 'shell' && details.exitCode === 0) {
      const { command: given } = call.arguments as { command?: unknown };
      const command = typeof given === 'string' ? given : '';
      if (/(^|[;&|]\s*)git\s+(-\S+\s+)*commit\b/.test(command)) metrics.commits.add(1, options.attributes);
      if (/(^|[;&|]\s*)gh\s+pr\s+create\b/.test(command)) metrics.pullRequests.add(1, options.attributes);
    }
  };

  let top = newRun(options.agentName(), options.parent);
  return {
    /** Follows one conversation (a new one after /clear or /resume); returns the unsubscribe. */
    observe(conversation: ObservedConversation): () => void {
      sessionId = conversation.id;
      top = newRun(options.agentName(), options.parent);
      metrics.sessions.add(1, { ...options.attributes, 'session.id': sessionId });
      return conversation.subscribe((event) => {
        if (event.type === 'agent_start') top.agent = options.agentName();
        handle(top, event, conversation.provider, options.parent);
      });
    },
    /** The permission chain's verdict on a call, with where it came from (read before the tool's end). */
    recordDecision(decision: ToolDecision): void {
      decisions.set(decision.toolUseId, decision);
    },
  };
}

export type SessionObserver = ReturnType<typeof createSessionObserver>;

function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 1) === 1 ? '01' : '00'}`;
}
