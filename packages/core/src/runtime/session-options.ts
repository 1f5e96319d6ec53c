import type { AfterToolCall, BeforeToolCall } from '../agent/tool-hooks.js';
import type { DurableSteps } from '../agent/durable-steps.js';
import type { AgentMessage } from '../agent/types.js';
import type { LlmMessage } from '../llm/types.js';
import type { MemoryStore } from '../memory/memory-store.js';
import type { ConfigFlags, SettingSource } from '../config/index.js';
import type { GuardrailsSettings } from '../guardrails/schema.js';
import type { ProgramHooks } from '../hooks/program-hooks.js';
import type { McpToolInfo } from '../mcp/mcp-tools.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { InputGuardrail, OutputGuardrail } from '../guardrails/function-guardrails.js';
import type { LLMClient } from '../llm/types.js';
import type { EditorFiles } from '../tools/editor-files.js';
import type { AnyTool, EditorTerminal } from '../tools/tool.js';
import type { InlineAgents } from '../subagents/agents.js';
import type { TelemetryProviders } from '../telemetry/index.js';
import type { OutputFormat } from './structured-output.js';
import type { HandoffInfo, HandoffInputData } from '../subagents/handoff.js';

/** The Claude Agent SDK's permission callback: asked whenever the policy would ask a person. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: { signal: AbortSignal; toolUseID: string; suggestions: unknown[] },
) => Promise<PermissionResult>;

export type PermissionResult = { behavior: 'allow'; updatedInput?: Record<string, unknown> } | { behavior: 'deny'; message: string; interrupt?: boolean };

/** How to build a session. Names follow the Claude Agent SDK's options where the meaning is the same. */
export interface AgentSessionOptions {
  /** The folder to work in (its git root is the workspace). Default: the process's folder. */
  cwd?: string;
  /** More folders the file tools may read and write besides the workspace (Claude Code's `--add-dir`). */
  additionalDirectories?: readonly string[];
  /** The environment to read keys and settings from. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Which settings files to read. Default: all (`user`, `project`, `local`). */
  settingSources?: readonly SettingSource[];
  /** Apply the workspace's own looser settings even if the folder is not trusted (`--trust`). */
  trustWorkspace?: boolean;
  /** Settings by dotted key that override every file and the environment (the CLI's flags). */
  flags?: ConfigFlags;
  provider?: string;
  model?: string;
  /** Claude Code's `--fallback-model`: answers when the model fails after retries (overloaded, 5xx); an alias works. */
  fallbackModel?: string;
  /** Beans' names (`default`, `auto-edit`, `yolo`, `plan`) or the SDK's (`acceptEdits`, `bypassPermissions`, `dontAsk`). */
  permissionMode?: string;
  /** Rules such as `write_file` or `shell(git *)`. */
  allowedTools?: string | readonly string[];
  disallowedTools?: string | readonly string[];
  maxTurns?: number;
  maxBudgetUsd?: number;
  /**
   * The program's own OpenTelemetry providers: Beans' spans, metrics and log events go to them
   * (telemetry is then on whatever the settings say) and Beans starts no SDK of its own.
   */
  telemetry?: TelemetryProviders;
  /** Replaces the profile's instructions; the environment, context files and skills are still added. */
  systemPrompt?: string;
  /** Appended to the end of the system prompt. */
  appendSystemPrompt?: string;
  /** A Markdown profile file or a plugin agent's name (`--agent-profile`). */
  agentProfile?: string;
  /** A description the model turns into a profile (`-a`). */
  agentDescription?: string;
  /** Subagents for the task tool in Claude Code's shape `{ name: { description, prompt, tools?, model? } }`, or that as JSON (`--agents`). */
  agents?: InlineAgents | string;
  /** Extra plugin roots. */
  pluginDirs?: readonly string[];
  /** Where the built-in plugins are (default: the `plugins/` folder shipped with Beans). */
  builtinPluginsDir?: string;
  /** Resume a stored session by id or unique prefix. */
  resume?: string;
  /** Continue the newest session of the workspace. */
  continue?: boolean;
  /** The id of a new session (when not persisted, or chosen by the caller); with `forkSession`, the fork's. */
  sessionId?: string;
  /** With `resume` or `continue`: continue in a new session holding a copy of the conversation; the original stays as it was. */
  forkSession?: boolean;
  /** With `resume`: the conversation continues after the message with this uuid; what followed it is dropped. */
  resumeSessionAt?: string;
  /** False: keep no session file. Default true. */
  persistSession?: boolean;
  /** True: background commands keep running after close() (`--keep-tasks`); by default close() stops them. */
  keepBackgroundTasks?: boolean;
  /** True for front ends where a person answers permission questions through `setAsker`. */
  interactive?: boolean;
  /**
   * True where a host runs the session's scheduled prompts (`schedules.start()`: the chat, a served
   * session, the SDK protocol's session): the model is offered schedule_wakeup and the cron tools.
   * Default: `interactive`.
   */
  hostsSchedules?: boolean;
  canUseTool?: CanUseTool;
  /** Tools beyond the built-in ones (SDK or MCP tools); they are offered whatever the profile's tool list says. */
  tools?: AnyTool[];
  /** The program's own object for this session (`createAgentSession`'s generic `context`); Beans passes it to the program's callbacks. */
  context?: unknown;
  /** MCP servers in Claude Code's shape: `{ name: { command, args?, env? } | { type: 'http' | 'sse', url, headers? } }`. */
  mcpServers?: Record<string, unknown>;
  /**
   * MCP servers living inside the program (the Claude Agent SDK's createSdkMcpServer): their tools,
   * and the transport the first call connects over. Listed, toggled and reported like the others.
   */
  inProcessMcpServers?: readonly { name: string; tools: readonly McpToolInfo[]; open: () => Transport }[];
  /** `--mcp-config`: files or JSON text holding `{ "mcpServers": ... }`. */
  mcpConfig?: readonly string[];
  /** `--strict-mcp-config`: only `mcpConfig` and `mcpServers`, not plugins' or the project's. */
  strictMcpConfig?: boolean;
  /**
   * Offer each MCP server's tools as it offered them on the last run instead of waiting for it
   * before the first request; it starts once the model answers, or for a call to its tools (its
   * status is `pending` until then). Off by default: programs reading `system/init` expect
   * connected servers.
   */
  mcpFromLastRun?: boolean;
  /**
   * Hook functions in the Claude Agent SDK's shape, `{ PreToolUse: [{ matcher?, hooks: [fn] }], Stop: ... }`:
   * they run with the configured command hooks for every event Beans has (a warning names the others),
   * each answer read as a hook's JSON output.
   */
  hooks?: ProgramHooks;
  /** Runs before the permission check of every call (hooks). */
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  /** What hooks say to the user only (`systemMessage`, failed or timed-out hooks). */
  onHookMessage?: (message: string) => void;
  /** Called when a person is asked a permission question (Notification hooks). */
  onAsk?: (toolName: string) => void;
  /** Guardrails beyond the settings' (an agent's frontmatter). */
  guardrails?: GuardrailsSettings;
  /** The program's guardrail functions on each user prompt, run after the pattern rules pass (see RunContextOptions). */
  inputGuardrails?: readonly InputGuardrail[];
  /** The program's guardrail functions on each final answer, run after the pattern rules pass. */
  outputGuardrails?: readonly OutputGuardrail[];
  /** Called before the conversation moves to another agent (see RunContextOptions). */
  onHandoff?(handoff: HandoffInfo, context: unknown): void | Promise<void>;
  /** The history the agent taking the conversation reads from then on (see RunContextOptions). */
  handoffInputFilter?(data: HandoffInputData): readonly AgentMessage[] | Promise<readonly AgentMessage[]>;
  /** A client to use instead of creating one from the configuration (tests, embedding programs). */
  client?: LLMClient;
  /**
   * The SDK's `outputFormat` (`--json-schema`): every turn's final answer must be JSON valid against
   * the schema; the model retries with what was wrong, and the result carries `structured_output`.
   */
  outputFormat?: OutputFormat;
  /** An editor's buffers (`beans acp` with a client offering fs): the file tools read and write text through it. */
  editorFiles?: EditorFiles;
  /**
   * An editor's terminal (`beans acp` with a client offering terminals): the session's foreground shell
   * commands run there, except under --sandbox, whose commands run in the sandbox.
   */
  editorTerminal?: EditorTerminal;
  /**
   * Rewrites the conversation before each request, after Beans' own compaction: the returned list is
   * what the model reads this time (the history itself is unchanged). Agent messages in, agent messages out.
   */
  transformContext?: (messages: readonly AgentMessage[], signal: AbortSignal) => AgentMessage[] | Promise<AgentMessage[]>;
  /** Turns agent messages into the provider's messages (default: `convertToLlm`, which callers may wrap). */
  convertToLlm?: (messages: readonly AgentMessage[]) => LlmMessage[];
  /**
   * At most this many calls of a tool per run (one user message until the answer, as `maxTurns`),
   * by Beans' or Claude Code's name: `{ shell: 20 }`. A call over the quota is not run; the model
   * reads an error result saying so. Subagents' calls count in their parent's run.
   */
  toolLimits?: ToolLimits;
  /**
   * Where the `memory` tool keeps the project's facts and where the system prompt reads them from;
   * default: the workspace's `.beans/memory.md` (`fileMemoryStore`). Read once per session.
   */
  memory?: MemoryStore;
  /**
   * Makes each model answer and tool result of the conversation a durable step, recorded once and
   * read back when the session is replayed elsewhere (a runner's background session; subagents'
   * requests are not steps, their `task` call is).
   */
  durableSteps?: DurableSteps;
}

/** Per-tool call quotas for one run: tool name (Beans' or Claude Code's) to the most calls allowed. */
export type ToolLimits = Readonly<Record<string, number>>;
