import { emptyUsage } from '../agent/usage.js';
import type { ContentPart } from '../llm/types.js';
import { createAgentSession, type AgentSession } from './agent-session.js';
import { AsyncQueue } from './async-queue.js';
import { parsePermissionMode } from './permission-mode.js';
import { exitCodeForFailure } from '../llm/failures.js';
import { modelLimits } from '../llm/providers.js';
import { SdkMessageMapper, type RunSummary } from './sdk-messages.js';
import type { TurnOutcome } from './run-turn.js';
import type { SubmitInput, SubmitOutcome } from './submit.js';
import type { SdkMessage } from './sdk-types.js';
import type { ToolNames } from './wire-names.js';
import type { CreateSessionOptions } from './run-context.js';
import type { McpServerStatus, McpSetServersResult } from '../mcp/mcp-servers.js';
import { rewindFilesResult, type RewindFilesResult } from './session-checkpoints.js';
import { watchBackgroundTasks } from './task-events.js';

/** A user message as the Claude Agent SDK streams it in. */
export interface SdkUserInput {
  type: 'user';
  message: { role: 'user'; content: string | SdkInputBlock[] };
  parent_tool_use_id?: string | null;
  session_id?: string;
  uuid?: string;
}

export type SdkInputBlock =
  { type: 'text'; text: string } | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } } | { type: string; [key: string]: unknown };

export interface QueryOptions<TContext = unknown> extends Omit<CreateSessionOptions<TContext>, 'interactive' | 'flags'> {
  /** Aborting it interrupts the run in progress and ends the query. */
  abortController?: AbortController;
  /** Also yield `stream_event` messages as text and tool input stream in. */
  includePartialMessages?: boolean;
  /** Keep file checkpoints at every user message so `rewindFiles()` can restore them (the SDK's option). */
  enableFileCheckpointing?: boolean;
  /** `claude`: messages name tools as Claude Code does (`Write` with `file_path`), as the SDK's do. Default `beans`. */
  toolNames?: ToolNames;
}

/** The messages of a run, plus controls, as the Claude Agent SDK's `Query`. */
export interface Query extends AsyncGenerator<SdkMessage, void> {
  /** Stops the turn in progress; its result is an `error_during_execution`. */
  interrupt(): Promise<void>;
  /** Changes the model for the next turns. */
  setModel(model?: string): Promise<void>;
  /** Beans' or the SDK's mode names. */
  setPermissionMode(mode: string): Promise<void>;
  /** Puts the files back as they were at a user message (its uuid); `dryRun` only says what would change. */
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
  /** Each MCP server with its status, error and tools, in Claude Code's McpServerStatus shape. */
  mcpServerStatus(): Promise<McpServerStatusInfo[]>;
  /** Disables a server (its tools leave the next request) or enables it again. */
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  /** Connects a server again; throws with its error if it does not connect. */
  reconnectMcpServer(serverName: string): Promise<void>;
  /** Replaces the servers an earlier call set with these (Claude Code's mcpServers shape). */
  setMcpServers(servers: Record<string, unknown>): Promise<McpSetServersResult>;
  /** Stops a background task (a command or a subagent); its task_notification says stopped. */
  stopTask(taskId: string): Promise<void>;
  /** Ends the query: stops any run and releases the session. */
  close(): void;
}

/** Claude Code's McpServerStatus, as far as Beans knows it. */
export interface McpServerStatusInfo {
  name: string;
  status: McpServerStatus['status'];
  error?: string;
  tools: { name: string }[];
}

/** A session's MCP servers as Claude Code's mcp_status reports them. */
export function mcpServerStatusInfo(servers: readonly McpServerStatus[]): McpServerStatusInfo[] {
  return servers.map((server) => ({
    name: server.name,
    status: server.status,
    ...(server.error ? { error: server.error } : {}),
    tools: server.tools.map((name) => ({ name })),
  }));
}

/**
 * Runs Beans as a library: each user message (one string, or a stream of SDK user messages) runs
 * the agent to completion, and the generator yields exactly what `-o stream-json` prints: a
 * `system/init`, the assistant and tool-result messages as they happen, and a `result`.
 */
export function query<TContext = unknown>({ prompt, options = {} }: { prompt: string | AsyncIterable<SdkUserInput>; options?: QueryOptions<TContext> }): Query {
  const outbox = new AsyncQueue<SdkMessage>();
  let agent: AgentSession | undefined;
  let closed = false;
  const { enableFileCheckpointing, toolNames, ...sessionOptions } = options;
  const ready = createAgentSession<TContext>({ ...sessionOptions, interactive: false, flags: { 'checkpoints.enabled': enableFileCheckpointing === true } });

  const run = async () => {
    agent = await ready;
    const providerId = agent.providerId;
    const mapper = new SdkMessageMapper({
      sessionId: agent.session.id,
      includePartialMessages: options.includePartialMessages,
      modelLimits: (model) => modelLimits(providerId, model),
      toolNames,
      workspaceRoot: agent.workspace.root,
    });
    agent.session.subscribe((event) => {
      for (const message of mapper.event(event)) outbox.push(message);
    });
    watchBackgroundTasks(
      agent.backgroundTasks,
      () => agent!.session.id,
      (message) => outbox.push(message),
    );
    const onAbort = () => agent?.session.abort();
    options.abortController?.signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const message of userTurns(prompt)) {
        if (closed || options.abortController?.signal.aborted) break;
        outbox.push(mapper.init(agent.initInfo()));
        const started = Date.now();
        outbox.push(mapper.result(submitSummary(await agent.submit(message), Date.now() - started)));
      }
    } finally {
      options.abortController?.signal.removeEventListener('abort', onAbort);
      await agent.close();
    }
  };
  run().then(
    () => outbox.end(),
    (error: unknown) => outbox.fail(error),
  );

  const generator = outbox.drain() as Query;
  generator.interrupt = async () => {
    (agent ?? (await ready)).session.abort();
  };
  generator.setModel = async (model) => {
    const session = (agent ?? (await ready)).session;
    session.setModel(model ?? session.model);
  };
  generator.setPermissionMode = async (mode) => {
    (agent ?? (await ready)).permissionMode = parsePermissionMode(mode);
  };
  generator.rewindFiles = async (userMessageId, rewind = {}) => rewindFilesResult((agent ?? (await ready)).checkpoints, userMessageId, rewind.dryRun === true);
  const session = async () => agent ?? (await ready);
  generator.mcpServerStatus = async () => mcpServerStatusInfo((await session()).mcpServers());
  generator.toggleMcpServer = async (name, enabled) => (await session()).toggleMcpServer(name, enabled);
  generator.reconnectMcpServer = async (name) => (await session()).reconnectMcpServer(name);
  generator.setMcpServers = async (servers) => (await session()).setMcpServers(servers);
  generator.stopTask = async (taskId) => {
    const tasks = (await session()).backgroundTasks;
    if (!tasks.get(taskId)) throw new Error(`There is no background task "${taskId}".`);
    await tasks.kill(taskId);
  };
  generator.close = () => {
    closed = true;
    agent?.session.abort();
    outbox.end();
  };
  return generator;
}

async function* userTurns(prompt: string | AsyncIterable<SdkUserInput>): AsyncGenerator<SubmitInput> {
  if (typeof prompt === 'string') {
    yield { text: prompt };
    return;
  }
  for await (const input of prompt) {
    const message = fromSdkUser(input);
    if (message) yield message;
  }
}

/** How a program's message ended, as the `result` message reports it. */
export function submitSummary(outcome: SubmitOutcome, durationMs: number): RunSummary {
  if (outcome.kind === 'turn') return turnSummary(outcome.turn, durationMs);
  // A session command answers without the model: its text is the result.
  const answered = outcome.kind === 'command' ? outcome.text : '';
  const result = { stopReason: 'completed' as const, finalText: answered, turns: 0, usage: emptyUsage(), apiDurationMs: 0, permissionDenials: [] };
  if (outcome.kind === 'refused') return { result: { ...result, stopReason: 'error' }, durationMs, error: outcome.reason };
  if (outcome.kind === 'stopped') return { result: { ...result, stopReason: 'aborted' }, durationMs };
  return { result, durationMs };
}

/** The exit code a one-shot run of this turn would have had (0 success, 1 error, 2 refused prompt, 4 limit, 130 stopped). */
export function turnExitCode(outcome: Extract<SubmitOutcome, { kind: 'turn' }>): number {
  const { result, refused } = outcome.turn;
  if (refused) return refused.stage === 'prompt' ? 2 : 1;
  if (result.stopReason === 'completed') return 0;
  if (result.stopReason === 'aborted') return 130;
  if (result.stopReason === 'max_turns' || result.stopReason === 'max_budget') return 4;
  return result.failure ? exitCodeForFailure(result.failure) : 1;
}

/** A turn as the `result` message reports it: a refused prompt or a withheld answer is its error. */
function turnSummary(turn: TurnOutcome, durationMs: number): RunSummary {
  const result = { ...turn.result, finalText: turn.answer };
  if (!turn.refused) return { result, durationMs, structured: turn.structured };
  const error = turn.refused.stage === 'prompt' ? `The prompt was blocked: ${turn.refused.reason}` : `The answer was withheld: ${turn.refused.reason}`;
  return { result: { ...result, stopReason: 'error' }, durationMs, error };
}

/** An SDK user message as input to submit: text blocks joined, images kept as parts. */
export function fromSdkUser(input: SdkUserInput): SubmitInput | undefined {
  const content = input.message?.content;
  const uuid = input.uuid ? { uuid: input.uuid } : {};
  if (typeof content === 'string') return content.trim() ? { text: content, ...uuid } : undefined;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  const parts: ContentPart[] = [];
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'image' && isBase64Source(block.source)) parts.push({ type: 'image', mimeType: block.source.media_type, data: block.source.data });
  }
  if (texts.length === 0 && parts.length === 0) return undefined;
  return { text: texts.join('\n'), ...(parts.length > 0 ? { parts } : {}), ...uuid };
}

function isBase64Source(source: unknown): source is { type: 'base64'; media_type: string; data: string } {
  const s = source as { type?: unknown; media_type?: unknown; data?: unknown } | undefined;
  return s?.type === 'base64' && typeof s.media_type === 'string' && typeof s.data === 'string';
}
