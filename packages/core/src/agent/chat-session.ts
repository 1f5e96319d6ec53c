import { randomUUID } from 'node:crypto';
import type { LLMClient } from '../llm/types.js';
import type { Authorize } from '../permissions/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createToolSessionState, type ToolSessionState } from '../tools/tool.js';
import type { Workspace } from '../workspace/workspace.js';
import { runAgentLoop } from './agent-loop.js';
import { addUsage, emptyUsage } from './usage.js';
import type { AgentEvent, AgentMessage, AgentRunResult, UsageTotals, UserMessage } from './types.js';

export interface ChatSessionOptions {
  id?: string;
  client: LLMClient;
  provider: string;
  model: string;
  /** The system prompt, set once per session; only the SOP section changes later. */
  systemPrompt: string;
  sop?: string;
  tools: ToolRegistry;
  workspace: Workspace;
  authorize?: Authorize;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** Earlier history when resuming. */
  messages?: AgentMessage[];
  /** Called for every message as it is appended (the session log). */
  record?: (message: AgentMessage) => void;
  /** Called when the model or the SOP changes, so a resumed session gets them back. */
  recordChange?: (change: { kind: 'model'; provider: string; model: string } | { kind: 'sop'; sop: string }) => void;
  transformContext?: (messages: AgentMessage[], signal: AbortSignal) => Promise<AgentMessage[]>;
  /** Releases what the session holds (its log file) when it is replaced or ends. */
  onClose?: () => void;
}

export type SessionListener = (event: AgentEvent) => void;

/** One conversation: the system prompt, the history, the queues, and the run in progress. */
export class ChatSession {
  readonly id: string;
  readonly workspace: Workspace;
  readonly messages: AgentMessage[];
  readonly toolState: ToolSessionState = createToolSessionState();
  readonly usage: UsageTotals = emptyUsage();
  client: LLMClient;
  provider: string;
  model: string;
  tools: ToolRegistry;
  private readonly baseSystemPrompt: string;
  private sopText: string;
  private readonly listeners = new Set<SessionListener>();
  private readonly steering: UserMessage[] = [];
  private readonly followUps: UserMessage[] = [];
  private controller?: AbortController;
  private closing = false;

  constructor(private readonly options: ChatSessionOptions) {
    this.id = options.id ?? randomUUID();
    this.workspace = options.workspace;
    this.messages = options.messages ? [...options.messages] : [];
    this.client = options.client;
    this.provider = options.provider;
    this.model = options.model;
    this.tools = options.tools;
    this.baseSystemPrompt = options.systemPrompt;
    this.sopText = options.sop ?? '';
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

  setModel(model: string): void {
    this.model = model;
    this.options.recordChange?.({ kind: 'model', provider: this.provider, model });
  }

  get isRunning(): boolean {
    return this.controller !== undefined;
  }

  get queuedCount(): number {
    return this.steering.length + this.followUps.length;
  }

  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs the agent on a user message. One run at a time: while running, use `steer` or `followUp`. */
  async prompt(input: string | UserMessage | UserMessage[], signal?: AbortSignal): Promise<AgentRunResult> {
    if (this.controller) throw new Error('The agent is already running; queue the message with steer() or followUp().');
    const prompts = typeof input === 'string' ? [userMessage(input)] : Array.isArray(input) ? input : [input];
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    this.controller = controller;
    try {
      const result = await runAgentLoop(
        prompts,
        this.messages,
        {
          model: this.model,
          provider: this.provider,
          systemPrompt: this.systemPrompt,
          tools: this.tools,
          stream: (request) => this.client.chatStream(request),
          toolContext: { workspace: this.workspace, state: this.toolState },
          authorize: this.options.authorize,
          signal: controller.signal,
          maxTurns: this.options.maxTurns,
          maxBudgetUsd: this.options.maxBudgetUsd,
          hasSteering: () => this.steering.length > 0,
          takeSteering: () => this.steering.splice(0),
          takeFollowUps: () => this.followUps.splice(0, 1),
          transformContext: this.options.transformContext,
        },
        (event) => this.dispatch(event),
      );
      if (result.stopReason === 'aborted') this.append({ role: 'note', kind: 'interrupted', text: 'Interrupted by the user.', timestamp: Date.now() });
      return result;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.controller = undefined;
      // Steering belongs to the run it was sent into; after an error or a limit it must not skip
      // the tool calls of the next run. (Follow-ups stay queued for the next prompt.)
      this.steering.length = 0;
      if (this.closing) this.options.onClose?.();
    }
  }

  /** Queues a message the agent sees after the current tool batch; remaining calls are skipped. */
  steer(text: string): void {
    this.steering.push(userMessage(text, 'steering'));
  }

  /** Queues a message that runs after the agent would otherwise stop. */
  followUp(text: string): void {
    this.followUps.push(userMessage(text, 'follow_up'));
  }

  abort(): void {
    this.controller?.abort();
    this.steering.length = 0;
    this.followUps.length = 0;
  }

  /** Stops any run and releases the session's resources; the session is not used afterwards. */
  close(): void {
    this.closing = true;
    this.abort();
    // A run still unwinding records its last messages first; prompt() closes when it ends.
    if (!this.controller) this.options.onClose?.();
  }

  /** Appends a message outside a run (notes, compaction summaries) and records it. */
  append(message: AgentMessage): void {
    this.messages.push(message);
    this.dispatch({ type: 'message_start', message });
    this.dispatch({ type: 'message_end', message });
  }

  private dispatch(event: AgentEvent): void {
    if (event.type === 'message_end') {
      this.options.record?.(event.message);
      if (event.message.role === 'assistant' && event.message.usage) addUsage(this.usage, event.message.usage);
    }
    for (const listener of this.listeners) listener(event);
  }
}

export function userMessage(content: string, origin: UserMessage['origin'] = 'prompt', display?: string): UserMessage {
  return { role: 'user', content, origin, display, timestamp: Date.now() };
}
