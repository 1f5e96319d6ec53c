import type { Thinking } from '../llm/thinking.js';
import { randomUuid } from '../random-ids.js';
import type { ChatRequest, LLMClient, LlmMessage, ToolCall } from '../llm/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createToolSessionState, type ToolContext, type ToolSessionState } from '../tools/tool.js';
import type { Workspace } from '../workspace/workspace.js';
import { runAgentLoop } from './agent-loop.js';
import { convertToLlm } from './convert.js';
import type { DurableSteps } from './durable-steps.js';
import type { LoopDetectionOptions } from './loop-detector.js';
import { askSideQuestion, settledMessages, type SideAnswer } from './side-question.js';
import { executeToolCalls, type ReadOnlyCommandCheck } from './tool-executor.js';
import type { AfterToolCall, BeforeToolCall } from './tool-hooks.js';
import { addUsage, emptyUsage, subagentUsage, type SpendFn } from './usage.js';
import type { AgentEvent, AgentMessage, AgentRunResult, QueuedMessage, ToolResultMessage, UsageTotals, UserMessage } from './types.js';

export interface ChatSessionOptions {
  id?: string;
  /** How much the model may think on every request (the `thinking` setting); unset: the provider's default. */
  thinking?: Thinking;
  client: LLMClient;
  provider: string;
  model: string;
  /** The system prompt, set once per session; only the SOP section changes later (and a handoff replaces it). */
  systemPrompt: string;
  sop?: string;
  tools: ToolRegistry;
  workspace: Workspace;
  /** Runs before each call: the permission check and hooks, composed by the session factory. */
  beforeToolCall?: BeforeToolCall;
  /** Once the user steers, a command line this says only reads still runs (the permission policy's read-only classifier). */
  isReadOnlyCommand?: ReadOnlyCommandCheck;
  afterToolCall?: AfterToolCall;
  /** Extra tool context (the tools' environment, the read-deny predicate, a sandbox). */
  toolContext?: Partial<Omit<ToolContext, 'signal' | 'onUpdate' | 'workspace' | 'state'>>;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** Earlier history when resuming. */
  messages?: AgentMessage[];
  /** Called for every message as it is appended (the session log). */
  record?: (message: AgentMessage) => void;
  /** Called when the model or the SOP changes, so a resumed session gets them back. */
  recordChange?: (change: { kind: 'model'; provider: string; model: string } | { kind: 'sop'; sop: string }) => void;
  transformContext?: (messages: AgentMessage[], signal: AbortSignal, spend: SpendFn) => Promise<AgentMessage[]>;
  /** Agent messages to the provider's (default: convertToLlm). */
  convertToLlm?: (messages: readonly AgentMessage[]) => LlmMessage[];
  loopDetection?: LoopDetectionOptions | false;
  /** Makes each model answer and tool result a durable step (a runner's background session). */
  steps?: DurableSteps;
  /** Releases what the session holds (its log file) when it is replaced or ends. */
  onClose?: () => void;
}

export type SessionListener = (event: AgentEvent) => void;

/**
 * One conversation: the system prompt, the history, the one queue of messages typed while the agent
 * works, and the run in progress.
 */
export class ChatSession {
  readonly id: string;
  readonly workspace: Workspace;
  readonly messages: AgentMessage[];
  readonly toolState: ToolSessionState = createToolSessionState();
  /** What this process spent on the conversation. */
  readonly usage: UsageTotals = emptyUsage();
  /** What the stored turns cost before this process resumed them (answers, and compaction summaries' notes). */
  private readonly storedUsage: UsageTotals = emptyUsage();
  client: LLMClient;
  provider: string;
  model: string;
  tools: ToolRegistry;
  private baseSystemPrompt: string;
  private sopText: string;
  private readonly listeners = new Set<SessionListener>();
  private queue: QueuedMessage[] = [];
  private controller?: AbortController;
  private closing = false;

  constructor(private readonly options: ChatSessionOptions) {
    this.id = options.id ?? randomUuid();
    this.thinking = options.thinking;
    this.workspace = options.workspace;
    this.messages = options.messages ? [...options.messages] : [];
    for (const message of this.messages)
      if ((message.role === 'assistant' || message.role === 'note') && message.usage) addUsage(this.storedUsage, message.usage);
    this.client = options.client;
    this.provider = options.provider;
    this.model = options.model;
    this.tools = options.tools;
    this.baseSystemPrompt = options.systemPrompt;
    this.sopText = options.sop ?? '';
  }

  /** Tokens and cost of the whole conversation: its stored turns plus what this process spent. */
  get totalUsage(): UsageTotals {
    const totals = { ...this.storedUsage };
    addUsage(totals, this.usage);
    totals.costKnown = this.storedUsage.costKnown && this.usage.costKnown;
    return totals;
  }

  get systemPrompt(): string {
    return this.sopText ? `${this.baseSystemPrompt}\n\n# Standard operating procedure\n${this.sopText}` : this.baseSystemPrompt;
  }

  get sop(): string {
    return this.sopText;
  }

  setSop(text: string): void {
    this.sopText = text.trim();
    this.options.recordChange?.({ kind: 'sop', sop: this.sopText });
  }

  /** How much the model may think from the next request on (`set_max_thinking_tokens`); undefined: the provider's default. */
  thinking: Thinking | undefined;

  setModel(model: string): void {
    this.model = model;
    this.options.recordChange?.({ kind: 'model', provider: this.provider, model });
  }

  /** Replaces the profile part of the system prompt and the tools (a handoff to another agent). */
  setProfile(systemPrompt: string, tools: ToolRegistry): void {
    this.baseSystemPrompt = systemPrompt;
    this.tools = tools;
  }

  get isRunning(): boolean {
    return this.controller !== undefined;
  }

  /** Messages waiting for the agent, in the order it will see them. */
  get queued(): readonly QueuedMessage[] {
    return this.queue;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Runs the agent on a user message. One run at a time: while running, use `steer` or `followUp`.
   * A message queued just as the agent finished is not lost: the run goes on with it.
   */
  async prompt(input: string | UserMessage | UserMessage[], signal?: AbortSignal): Promise<AgentRunResult> {
    if (this.controller) throw new Error('The agent is already running; queue the message with steer() or followUp().');
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    this.controller = controller;
    try {
      let prompts = typeof input === 'string' ? [userMessage(input)] : Array.isArray(input) ? input : [input];
      for (;;) {
        const result = await this.run(prompts, controller);
        if (result.stopReason === 'aborted') {
          this.append({ role: 'note', kind: 'interrupted', text: 'Interrupted by the user.', timestamp: Date.now() });
        }
        if (result.stopReason !== 'completed' || this.queue.length === 0 || controller.signal.aborted) return result;
        prompts = this.take(() => true).map(queuedPrompt);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.controller = undefined;
      // Steering belongs to the run it was sent into; after an error or a limit it must not skip
      // the tool calls of the next run. (Follow-ups stay queued for the next prompt.)
      if (this.queue.some((queued) => queued.kind === 'steering')) this.take((queued) => queued.kind === 'steering');
      if (this.closing) this.options.onClose?.();
    }
  }

  private run(prompts: UserMessage[], controller: AbortController): Promise<AgentRunResult> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below run with the config object as this
    const session = this;
    return runAgentLoop(
      prompts,
      this.messages,
      {
        // Read at every request: a handoff during the run changes the agent for the next request.
        get model() {
          return session.model;
        },
        provider: this.provider,
        get systemPrompt() {
          return session.systemPrompt;
        },
        get tools() {
          return session.tools;
        },
        stream: (request) => this.client.chatStream({ ...request, ...this.requestSettings() }),
        toolContext: { ...this.options.toolContext, workspace: this.workspace, state: this.toolState },
        beforeToolCall: this.options.beforeToolCall,
        afterToolCall: this.options.afterToolCall,
        interrupt: () => controller.abort(),
        signal: controller.signal,
        maxTurns: this.options.maxTurns,
        maxBudgetUsd: this.options.maxBudgetUsd,
        hasSteering: () => this.queue.some((queued) => queued.kind === 'steering'),
        isReadOnlyCommand: this.options.isReadOnlyCommand,
        takeSteering: () => this.take((queued) => queued.kind === 'steering').map(queuedPrompt),
        takeFollowUps: () => {
          const next = this.queue.find((queued) => queued.kind === 'follow_up');
          return next ? this.take((queued) => queued === next).map(queuedPrompt) : [];
        },
        transformContext: this.options.transformContext,
        convertToLlm: this.options.convertToLlm,
        loopDetection: this.options.loopDetection,
        steps: this.options.steps,
      },
      (event) => this.dispatch(event),
    );
  }

  /**
   * Queues a message the agent sees after the current tool batch; calls that change things and have
   * not started are skipped. A prepared message (the submit path's: `@file` parts attached, hooks'
   * context added) is sent as it is; its `display`, or its words, is what the queue shows.
   */
  steer(message: string | UserMessage): QueuedMessage {
    return this.enqueue(message, 'steering');
  }

  /** Queues a message that runs after the agent would otherwise stop. */
  followUp(message: string | UserMessage): QueuedMessage {
    return this.enqueue(message, 'follow_up');
  }

  /** Empties the queue and returns what was in it (an interrupted UI puts it back in the input box). */
  takeQueued(): QueuedMessage[] {
    return this.take(() => true);
  }

  abort(): void {
    this.controller?.abort();
    if (this.queue.length > 0) this.take(() => true);
  }

  /** Stops any run and releases the session's resources; the session is not used afterwards. */
  close(): void {
    this.closing = true;
    this.abort();
    // A run still unwinding records its last messages first; prompt() closes when it ends.
    if (!this.controller) this.options.onClose?.();
  }

  /**
   * Replaces the history the model reads from now on (a handoff's input filter). The session file
   * keeps what was recorded, so a resumed session reads the whole conversation again.
   */
  replaceHistory(messages: readonly AgentMessage[]): void {
    // The same array: a run in progress appends to it.
    this.messages.splice(0, this.messages.length, ...messages);
  }

  /** Appends a message outside a run (notes, compaction summaries) and records it. */
  append(message: AgentMessage): void {
    this.messages.push(message);
    this.dispatch({ type: 'message_start', message });
    this.dispatch({ type: 'message_end', message });
  }

  /**
   * `/btw`: a question aside from the task, answered from the conversation with no tools run; neither
   * the question nor the answer is kept. The request is the one the loop would send next (system
   * prompt, tools, thinking, cache key), so the provider's prompt cache serves the conversation, and
   * it may run while the agent works (without the step in flight). Its usage counts like any request's.
   */
  async askAside(question: string, signal: AbortSignal): Promise<SideAnswer> {
    const history = this.isRunning ? settledMessages(this.messages) : this.messages;
    const outcome = await askSideQuestion(
      this.client,
      { model: this.model, system: this.systemPrompt, tools: this.tools.declarations(), signal, ...this.requestSettings() },
      (this.options.convertToLlm ?? convertToLlm)(history),
      question,
    );
    if (outcome.usage) this.emit({ type: 'usage', usage: outcome.usage, model: this.model, purpose: 'side-question' });
    return outcome;
  }

  /**
   * Runs one call that did not come from the model (`beans mcp serve`: an MCP client's `tools/call`)
   * exactly as the loop runs the model's: input validation, the tool's own check, hooks, the
   * permission policy, the tools' context (confinement, read deny rules, the sandbox) and output
   * bounds. Its events reach the listeners; the call and its result join no conversation.
   */
  async runToolCall(call: ToolCall, signal: AbortSignal): Promise<ToolResultMessage> {
    const [result] = await executeToolCalls([call], {
      tools: this.tools,
      context: { ...this.options.toolContext, workspace: this.workspace, state: this.toolState },
      signal,
      beforeToolCall: this.options.beforeToolCall,
      afterToolCall: this.options.afterToolCall,
      emit: (event) => this.dispatch(event),
      hasSteering: () => false,
      denials: [],
    });
    return result;
  }

  /** What every request of this session carries besides its messages; the session id keys the provider's prompt cache (OpenAI's prompt_cache_key). */
  private requestSettings(): Pick<ChatRequest, 'cacheKey' | 'thinking'> {
    return { cacheKey: this.id, ...(this.thinking !== undefined ? { thinking: this.thinking } : {}) };
  }

  /** Announces an event that happened outside the loop (compaction, handoff notes) to listeners. */
  emit(event: AgentEvent): void {
    this.dispatch(event);
  }

  private enqueue(message: string | UserMessage, kind: QueuedMessage['kind']): QueuedMessage {
    const queued: QueuedMessage =
      typeof message === 'string' ? { id: randomUuid(), text: message, kind } : { id: randomUuid(), text: message.display ?? message.content, kind, message };
    this.queue = [...this.queue, queued];
    this.dispatch({ type: 'queue_update', queued: this.queue });
    return queued;
  }

  private take(which: (queued: QueuedMessage) => boolean): QueuedMessage[] {
    const taken = this.queue.filter(which);
    if (taken.length === 0) return taken;
    this.queue = this.queue.filter((queued) => !which(queued));
    this.dispatch({ type: 'queue_update', queued: this.queue });
    return taken;
  }

  private dispatch(event: AgentEvent): void {
    if (event.type === 'message_end') {
      this.options.record?.(event.message);
      if (event.message.role === 'assistant' && event.message.usage) addUsage(this.usage, event.message.usage);
    }
    if (event.type === 'usage') addUsage(this.usage, event.usage);
    const childUsage = subagentUsage(event);
    if (childUsage) addUsage(this.usage, childUsage);
    for (const listener of this.listeners) listener(event);
  }
}

/** A queued message as the agent reads it: the prepared message, or its words, marked with how it was queued. */
function queuedPrompt(queued: QueuedMessage): UserMessage {
  return queued.message ? { ...queued.message, origin: queued.kind } : userMessage(queued.text, queued.kind);
}

export function userMessage(content: string, origin: UserMessage['origin'] = 'prompt', display?: string): UserMessage {
  return { role: 'user', content, origin, display, uuid: randomUuid(), timestamp: Date.now() };
}
