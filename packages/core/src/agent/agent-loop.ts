import { randomUuid } from '../random-ids.js';
import type { StreamFn } from '../llm/collect.js';
import type { LlmMessage, ToolCall, Usage } from '../llm/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/tool.js';
import { convertToLlm as defaultConvertToLlm } from './convert.js';
import type { DurableSteps } from './durable-steps.js';
import { LoopDetector, type LoopDetectionOptions } from './loop-detector.js';
import { executeToolCalls, type ReadOnlyCommandCheck } from './tool-executor.js';
import type { AfterToolCall, BeforeToolCall } from './tool-hooks.js';
import { addUsage, emptyUsage, subagentUsage, type SpendFn } from './usage.js';
import type { AgentEventSink, AgentMessage, AgentRunResult, AgentStopReason, AssistantMessage, PermissionDenial, UsageTotals } from './types.js';

const YIELD_EVERY_EVENTS = 64;

export interface AgentLoopConfig {
  model: string;
  provider?: string;
  systemPrompt: string;
  tools: ToolRegistry;
  /** The provider call; tests pass a fake. Must not throw. */
  stream: StreamFn;
  toolContext: Omit<ToolContext, 'signal' | 'onUpdate'>;
  /** Runs before each validated call (permissions, hooks); may block it or change its input. */
  beforeToolCall?: BeforeToolCall;
  /** Runs after each call with its result; may replace the result. */
  afterToolCall?: AfterToolCall;
  /** Aborts the run from inside (a permission answer that asks to interrupt). */
  interrupt?: () => void;
  signal?: AbortSignal;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** Messages the user queued while the agent worked; read after each tool batch. */
  takeSteering?: () => AgentMessage[];
  hasSteering?: () => boolean;
  /** Once the user steers, which command lines only read (and so still run): the session's read-only classifier. */
  isReadOnlyCommand?: ReadOnlyCommandCheck;
  /** Messages to run once the agent would otherwise stop. */
  takeFollowUps?: () => AgentMessage[];
  /**
   * Rewrites the context before each request (e.g. compaction); runs on agent messages. `spend`
   * reports a request it made itself (a summary), which counts in the run's usage and budget.
   */
  transformContext?: (messages: AgentMessage[], signal: AbortSignal, spend: SpendFn) => Promise<AgentMessage[]>;
  convertToLlm?: (messages: readonly AgentMessage[]) => LlmMessage[];
  /** Stops a run that repeats itself; false turns it off. On by default. */
  loopDetection?: LoopDetectionOptions | false;
  /** Records each model answer and tool result, and reads them back on a replay (runners). */
  steps?: DurableSteps;
}

/**
 * Runs the agent until it answers without tool calls (and no follow-up is queued), a limit is
 * reached, the provider fails, or the signal aborts. `messages` is the live history: prompts and
 * every produced message are appended to it, and each append is announced with `message_end`.
 */
export async function runAgentLoop(prompts: AgentMessage[], messages: AgentMessage[], config: AgentLoopConfig, emit: AgentEventSink): Promise<AgentRunResult> {
  const signal = config.signal ?? new AbortController().signal;
  const convert = config.convertToLlm ?? defaultConvertToLlm;
  const usage: UsageTotals = emptyUsage();
  const denials: PermissionDenial[] = [];
  let turns = 0;
  let apiDurationMs = 0;
  let finalText = '';

  const append = (message: AgentMessage) => {
    messages.push(message);
    emit({ type: 'message_start', message });
    emit({ type: 'message_end', message });
  };

  // Subagents work for this run: their answers count in its usage and against its budget, and the
  // calls refused to them are its permission denials too.
  const emitFromTools: AgentEventSink = (event) => {
    const childUsage = subagentUsage(event);
    if (childUsage) addUsage(usage, childUsage);
    if (event.type === 'subagent' && event.event.type === 'agent_end') denials.push(...event.event.result.permissionDenials);
    emit(event);
  };

  const loops = config.loopDetection === false ? undefined : new LoopDetector(config.loopDetection);
  const end = (stopReason: AgentStopReason, failure?: AssistantMessage['failure'], loop?: string): AgentRunResult => {
    const result: AgentRunResult = { stopReason, failure, finalText, turns, usage, apiDurationMs, permissionDenials: denials, ...(loop ? { loop } : {}) };
    emit({ type: 'agent_end', result });
    return result;
  };

  emit({ type: 'agent_start' });
  let pending = prompts;

  for (;;) {
    for (const message of pending) append(message);

    if (signal.aborted) return end('aborted');
    if (config.maxTurns !== undefined && turns >= config.maxTurns) return end('max_turns');
    if (config.maxBudgetUsd !== undefined && usage.costUsd >= config.maxBudgetUsd) return end('max_budget');

    turns += 1;
    emit({ type: 'turn_start', turn: turns });
    const spend: SpendFn = (spent, model) => {
      addUsage(usage, spent);
      emit({ type: 'usage', usage: spent, model, purpose: 'compaction' });
    };
    const context = config.transformContext ? await config.transformContext(messages, signal, spend) : messages;
    // A summary request may have spent the rest of the budget.
    if (config.maxBudgetUsd !== undefined && usage.costUsd >= config.maxBudgetUsd) return end('max_budget');
    const started = Date.now();
    const assistant = await answer(config, convert(context), signal, emit);
    apiDurationMs += Date.now() - started;
    messages.push(assistant);
    emit({ type: 'message_end', message: assistant });
    if (assistant.usage) addUsage(usage, assistant.usage);
    if (assistant.content) finalText = assistant.content;

    if (assistant.stopReason === 'error' || assistant.stopReason === 'aborted') {
      emit({ type: 'turn_end', turn: turns, message: assistant, toolResults: [] });
      return end(assistant.stopReason === 'aborted' ? 'aborted' : 'error', assistant.failure);
    }

    if (assistant.toolCalls.length > 0) {
      const toolResults = await executeToolCalls(assistant.toolCalls, {
        tools: config.tools,
        context: config.toolContext,
        signal,
        beforeToolCall: config.beforeToolCall,
        afterToolCall: config.afterToolCall,
        interrupt: config.interrupt,
        steps: config.steps,
        emit: emitFromTools,
        hasSteering: config.hasSteering ?? (() => false),
        isReadOnlyCommand: config.isReadOnlyCommand,
        denials,
        onResults: (results) => {
          for (const result of results) {
            messages.push(result);
            emit({ type: 'message_end', message: result });
          }
        },
      });
      emit({ type: 'turn_end', turn: turns, message: assistant, toolResults });
      if (signal.aborted) return end('aborted');
      pending = config.takeSteering?.() ?? [];
      // What the user sent is new information: repeats before it do not count.
      const loop = pending.length === 0 ? loops?.record(assistant.content, assistant.toolCalls, toolResults) : undefined;
      if (loop) return end('loop', undefined, loop);
      continue;
    }

    emit({ type: 'turn_end', turn: turns, message: assistant, toolResults: [] });
    pending = config.takeSteering?.() ?? [];
    if (pending.length === 0) pending = config.takeFollowUps?.() ?? [];
    if (pending.length === 0) return end('completed');
  }
}

/** The model's answer: streamed now, or (durable steps) the one recorded for this request. */
async function answer(config: AgentLoopConfig, llmMessages: LlmMessage[], signal: AbortSignal, emit: AgentEventSink): Promise<AssistantMessage> {
  if (!config.steps) return streamAssistant(config, llmMessages, signal, emit);
  const { value, replayed } = await config.steps.modelAnswer(() => streamAssistant(config, llmMessages, signal, emit));
  // A recorded answer arrives whole: its start is announced here, its end by the loop as for any answer.
  if (replayed) emit({ type: 'message_start', message: value });
  return value;
}

async function streamAssistant(config: AgentLoopConfig, llmMessages: LlmMessage[], signal: AbortSignal, emit: AgentEventSink): Promise<AssistantMessage> {
  const message: AssistantMessage = {
    role: 'assistant',
    id: `msg_${randomUuid().replaceAll('-', '')}`,
    uuid: randomUuid(),
    content: '',
    toolCalls: [],
    model: config.model,
    provider: config.provider,
    timestamp: Date.now(),
  };
  emit({ type: 'message_start', message });
  const stream = config.stream({
    model: config.model,
    system: config.systemPrompt,
    messages: llmMessages,
    tools: config.tools.declarations(),
    signal,
  });
  let sinceYield = 0;
  for await (const event of stream) {
    // A stream that arrives in one burst resolves through microtasks only; yielding now and then
    // lets timers, signals (Ctrl+C) and the UI's redraws run.
    if (++sinceYield >= YIELD_EVERY_EVENTS) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    switch (event.type) {
      case 'text_delta':
        message.content += event.text;
        emit({ type: 'message_update', message, delta: event.text });
        break;
      case 'tool_call':
        message.toolCalls.push(event.call);
        emit({ type: 'message_update', message, delta: '', toolCall: event.call });
        break;
      case 'reasoning_delta':
        emit({ type: 'message_update', message, delta: '', thinking: event.text });
        break;
      case 'notice':
        emit({ type: 'notice', text: event.text });
        break;
      case 'retry':
        if (event.restart) message.content = '';
        emit({
          type: 'retry',
          attempt: event.attempt,
          delayMs: event.delayMs,
          failure: event.failure,
          ...(event.restart ? { restart: true } : {}),
          ...(event.maxAttempts ? { maxAttempts: event.maxAttempts } : {}),
        });
        break;
      case 'done':
        if (event.reasoning?.length) message.reasoning = event.reasoning;
        if (event.responseModel && event.responseModel !== message.model) message.responseModel = event.responseModel;
        return finishMessage(message, event.stopReason, event.text, event.toolCalls, event.usage);
      case 'error':
        message.failure = event.failure;
        return finishMessage(message, event.stopReason, event.text, event.toolCalls, event.usage);
    }
  }
  message.failure = { kind: 'unknown', message: 'The provider stream ended without a result.', retryable: false };
  message.stopReason = 'error';
  return message;
}

function finishMessage(
  message: AssistantMessage,
  stopReason: AssistantMessage['stopReason'],
  text: string,
  toolCalls: ToolCall[],
  usage: Usage,
): AssistantMessage {
  message.stopReason = stopReason;
  message.content = text;
  // A failed or aborted turn keeps its text but not half-formed tool calls: they never ran.
  message.toolCalls = stopReason === 'error' || stopReason === 'aborted' ? [] : toolCalls;
  message.usage = usage;
  return message;
}
