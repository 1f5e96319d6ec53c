import type {
  AvailableCommand,
  ClientCapabilities,
  ContentBlock,
  McpServer,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { BeansError, createAgentSession, modelLimits, type AgentSession, type PermissionMode, type Usage } from '@beans/core';
import { cliSessionOptions } from '../bootstrap.js';
import type { CliOptions } from '../options.js';
import { editorFiles, type EditorFsRequests } from './editor-fs.js';
import { editorAsker, type EditorAskerOptions } from './permissions.js';
import { promptInput } from './prompt-content.js';
import { UpdateTranslator } from './updates.js';

/** The permission modes, as the editor's mode picker lists them. */
const MODES: { id: PermissionMode; name: string; description: string }[] = [
  { id: 'default', name: 'Default', description: 'Ask before edits and commands' },
  { id: 'auto-edit', name: 'Auto-edit', description: 'Edit files without asking; ask before commands' },
  { id: 'plan', name: 'Plan', description: 'Read and plan only: no edits, no commands' },
  { id: 'yolo', name: 'Yolo', description: 'Run every tool call without asking' },
];

/** How long the model list may take before a session starts with only its current model listed. */
const MODEL_LIST_TIMEOUT_MS = 3_000;

export interface BridgeOptions {
  cli: CliOptions;
  cwd: string;
  mcpServers: readonly McpServer[];
  /** Resume this stored session (`session/load`). */
  resume?: string;
  send(sessionId: string, update: SessionUpdate): void;
  askEditor: EditorAskerOptions['request'];
  /** What the client offered (`fs.readTextFile`, `fs.writeTextFile`) and how to reach it. */
  clientCapabilities: ClientCapabilities;
  fsRequests: EditorFsRequests;
  warn(text: string): void;
}

/**
 * One ACP session on one core session (`createAgentSession`, as chat and one-shot use): it turns
 * the editor's prompts into turns and the session's events into updates, and carries modes, models,
 * permission questions and cancellation across. No agent logic lives here.
 */
export class SessionBridge {
  private running?: AbortController;
  /** Settles when the running turn has ended (its prompt answered). */
  private finished: Promise<unknown> = Promise.resolve();
  private models: { value: string; name: string }[] = [];

  private constructor(
    readonly agent: AgentSession,
    private readonly options: BridgeOptions,
  ) {}

  static async open(options: BridgeOptions): Promise<SessionBridge> {
    let agent: AgentSession | undefined;
    // The session's id and workspace are known once it exists; the editor is asked nothing before.
    const files = editorFiles(options.clientCapabilities, () => ({ sessionId: agent!.session.id, root: agent!.workspace.root }), options.fsRequests);
    try {
      agent = await createAgentSession({
        ...cliSessionOptions(options.cli, 'chat'),
        cwd: options.cwd,
        resume: options.resume,
        continue: false,
        sessionId: undefined,
        // The editor's servers are the user's own: trusted like --mcp-config, merged last.
        ...(options.mcpServers.length > 0 ? { mcpServers: claudeShapedServers(options.mcpServers) } : {}),
        onHookMessage: (message) => options.warn(message),
        ...(files ? { editorFiles: files } : {}),
      });
    } catch (error) {
      throw sessionError(error);
    }
    for (const warning of agent.warnings) options.warn(warning);
    const bridge = new SessionBridge(agent, options);
    agent.setAsker(editorAsker({ sessionId: bridge.id, root: agent.workspace.root, request: options.askEditor }));
    await bridge.loadModels();
    return bridge;
  }

  get id(): string {
    return this.agent.session.id;
  }

  /** Sends every stored message of the conversation as updates (`session/load`). */
  replay(): void {
    new UpdateTranslator(this.agent.workspace.root, (update) => this.options.send(this.id, update)).replay(this.agent.session.messages);
  }

  modes(): SessionModeState {
    return { currentModeId: this.agent.permissionMode, availableModes: MODES };
  }

  setMode(modeId: string): void {
    const mode = MODES.find((candidate) => candidate.id === modeId);
    if (!mode) throw RequestError.invalidParams({ modeId }, `Unknown mode "${modeId}". Use one of ${MODES.map((m) => m.id).join(', ')}.`);
    this.agent.permissionMode = mode.id;
  }

  /** The mode (also offered as `modes`, for clients that predate config options) and the model. */
  configOptions(): SessionConfigOption[] {
    const current = this.agent.session.model;
    const listed = this.models.some((model) => model.value === current) ? this.models : [{ value: current, name: current }, ...this.models];
    return [
      {
        type: 'select',
        id: 'mode',
        name: 'Mode',
        category: 'mode',
        currentValue: this.agent.permissionMode,
        options: MODES.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description })),
      },
      { type: 'select', id: 'model', name: 'Model', category: 'model', description: `${this.agent.providerId} model`, currentValue: current, options: listed },
    ];
  }

  setConfigOption(configId: string, value: unknown): SessionConfigOption[] {
    if (typeof value !== 'string' || !value.trim()) throw RequestError.invalidParams({ configId, value }, `The ${configId} must be a name.`);
    if (configId === 'mode') this.setMode(value);
    else if (configId === 'model') this.agent.session.setModel(value);
    else throw RequestError.invalidParams({ configId }, `Unknown configuration option "${configId}"; Beans offers "mode" and "model".`);
    return this.configOptions();
  }

  /** The session commands (`/compact`, `/cost` ...) and plugin commands (`/commit` ...), for the editor's command menu. */
  commands(): AvailableCommand[] {
    const own = this.agent.commands.map((command) => ({
      name: command.name,
      description: command.description,
      ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
    }));
    return [
      ...own,
      ...this.agent.catalog.commands().map((command) => ({
        name: command.name,
        description: command.description || `/${command.name} from ${command.plugin}`,
        ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
      })),
    ];
  }

  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    // A prompt sent right after a cancel waits for the cancelled turn to wind down (well under a
    // second); one sent while a turn is still running is refused.
    if (this.running?.signal.aborted) await this.finished;
    if (this.running) throw RequestError.invalidRequest({ sessionId: this.id }, 'This session is already answering a prompt; cancel it first.');
    const run = this.run(blocks);
    this.finished = run.catch(() => undefined);
    return run;
  }

  private async run(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const controller = new AbortController();
    this.running = controller;
    const translator = new UpdateTranslator(this.agent.workspace.root, (update) => this.options.send(this.id, update));
    let lastUsage: Usage | undefined;
    const stop = this.agent.session.subscribe((event) => {
      translator.event(event);
      if (event.type === 'turn_end' && event.message.usage) lastUsage = event.message.usage;
    });
    try {
      const input = promptInput(blocks, this.agent.workspace.root);
      const outcome = await this.agent.submit({
        text: input.text,
        ...(input.parts.length > 0 ? { parts: input.parts } : {}),
        ...(input.display !== input.text ? { display: input.display } : {}),
        signal: controller.signal,
      });
      if (outcome.kind === 'command') {
        this.say(outcome.text);
        return 'end_turn';
      }
      if (outcome.kind === 'refused') {
        this.say(`The prompt was not run: ${outcome.reason}`);
        return 'refusal';
      }
      if (outcome.kind !== 'turn') return 'cancelled';
      const turn = outcome.turn;
      for (const notice of turn.notices) this.say(`\n\n_${notice}_`);
      if (turn.refused) {
        this.say(turn.refused.stage === 'prompt' ? `The prompt was not run: ${turn.refused.reason}` : `\n\nThe answer was withheld: ${turn.refused.reason}`);
        return turn.refused.stage === 'prompt' ? 'refusal' : 'end_turn';
      }
      const { result } = turn;
      if (controller.signal.aborted || result.stopReason === 'aborted') return 'cancelled';
      if (result.stopReason === 'max_turns' || result.stopReason === 'max_budget' || result.stopReason === 'loop') {
        this.say(
          `\n\n_Stopped: ${result.stopReason === 'max_turns' ? 'the turn limit was reached' : result.stopReason === 'loop' ? `the agent was repeating itself (${result.loop ?? 'same call'})` : 'the budget was reached'}._`,
        );
        return 'max_turn_requests';
      }
      if (result.stopReason === 'error') throw RequestError.internalError({ sessionId: this.id }, result.failure?.message ?? 'The model request failed.');
      return 'end_turn';
    } finally {
      stop();
      this.running = undefined;
      this.reportUsage(lastUsage);
    }
  }

  /** The context the last request filled, of the model's window, and what the session has cost (`usage_update`). */
  private reportUsage(usage: Usage | undefined): void {
    const size = modelLimits(this.agent.providerId, this.agent.session.model).contextWindow;
    if (!usage || !size) return;
    const used = usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
    const spent = this.agent.session.usage;
    this.options.send(this.id, { sessionUpdate: 'usage_update', used, size, ...(spent.costKnown ? { cost: { amount: spent.costUsd, currency: 'USD' } } : {}) });
  }

  /** `session/cancel`: aborts the turn; running commands are killed by their tools' abort. */
  cancel(): void {
    this.running?.abort();
  }

  async close(): Promise<void> {
    this.cancel();
    await Promise.race([this.agent.end().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    await this.agent.close();
  }

  private say(text: string): void {
    this.options.send(this.id, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  }

  private async loadModels(): Promise<void> {
    const signal = AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS);
    try {
      const models = await this.agent.client.listModels(signal);
      this.models = models.map((model) => ({ value: model.name, name: model.name }));
    } catch {
      // The picker then lists only the current model; prompts still work.
      this.models = [];
    }
  }
}

/** ACP's server list in the `mcpServers` shape core takes (Claude Code's). */
function claudeShapedServers(servers: readonly McpServer[]): Record<string, unknown> {
  const shaped: Record<string, unknown> = {};
  for (const server of servers) {
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      shaped[server.name] = { type: server.type, url: server.url, headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) };
    } else if ('command' in server) {
      shaped[server.name] = {
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((variable) => [variable.name, variable.value])),
      };
    }
  }
  return shaped;
}

/**
 * Why a session could not be made, as the JSON-RPC error the editor shows. Without a reachable
 * provider the message names what to set.
 */
function sessionError(error: unknown): RequestError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof BeansError && error.exitCode === 3) {
    return RequestError.authRequired(
      { reason: message },
      `${message} Configure a model provider: set GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment the editor starts Beans with, or "provider" (and "model") in ~/.config/beans-agent/settings.json, or run Ollama (OLLAMA_HOST).`,
    );
  }
  if (error instanceof BeansError) return RequestError.invalidParams({ reason: message }, message);
  return RequestError.internalError({ reason: message }, message);
}
