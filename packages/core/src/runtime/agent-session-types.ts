import type { ChatSession } from '../agent/chat-session.js';
import type { AgentEvent } from '../agent/types.js';
import type { LoadedConfig } from '../config/index.js';
import type { Guardrails } from '../guardrails/index.js';
import type { HookRunner, HookSet } from '../hooks/index.js';
import type { LLMClient } from '../llm/index.js';
import type { McpServerStatus, McpSetServersResult } from '../mcp/mcp-servers.js';
import type { AskUser, PermissionMode } from '../permissions/types.js';
import type { PluginCatalog, Profile } from '../plugins/index.js';
import type { SessionStore, SubagentTranscript } from '../session/index.js';
import type { SubagentDefinition, SubagentOutcome } from '../subagents/index.js';
import type { ToolResult } from '../tools/tool.js';
import type { BackgroundTasks } from '../tools/background-tasks.js';
import type { LspServerStatus } from '../lsp/manager.js';
import type { Workspace } from '../workspace/workspace.js';
import type { RuntimeBase } from './base.js';
import type { Prepared } from './prepare-prompt.js';
import type { SessionInitInfo } from './sdk-messages.js';
import type { SessionCheckpoints } from './session-checkpoints.js';
import type { SessionCommand } from './session-commands.js';
import type { SessionModel } from './session-model.js';
import type { SessionListings } from './session-listings.js';
import type { SubmitInput, SubmitOutcome } from './submit.js';
import type { MemoryFileInfo, NoteTarget } from '../memory/index.js';

/**
 * Everything one session of Beans needs, built in one place: configuration, workspace, plugins, the
 * profile, provider and model, tools, the permission policy, the system prompt and the session log.
 * The one-shot runner, the chat UI, `query()`, the SDK protocol and subagents are thin clients of it.
 */
export interface AgentSession extends SessionModel, SessionListings {
  readonly base: RuntimeBase;
  readonly config: LoadedConfig;
  readonly workspace: Workspace;
  readonly catalog: PluginCatalog;
  readonly profile: Profile;
  readonly providerId: string;
  readonly client: LLMClient;
  /** A line for people when the provider picked the model itself. */
  readonly modelNote?: string;
  /** Undefined when sessions are not persisted. */
  readonly store?: SessionStore;
  /** Warnings found while building the session (settings, plugins), for the front end to show. */
  readonly warnings: string[];
  /** Configured command hooks (settings, plugins) and their runner, for the events the loop does not run itself. */
  readonly hookSet: HookSet;
  readonly hooks: HookRunner;
  /** Guardrails from settings and the profile; check prompts and answers with checkInput/checkOutput. */
  readonly guardrails: Guardrails;
  /** The live conversation; replaced by `newConversation` (/clear, /resume). */
  readonly session: ChatSession;
  onSessionChange(listener: (session: ChatSession) => void): () => void;
  permissionMode: PermissionMode;
  /** Whether the workspace's own settings, hooks and commands are trusted (`beans trust`, --trust). */
  readonly workspaceTrusted: boolean;
  /** `!command` in chat: runs a command the user typed, as the shell tool would, without asking (the user typed it). */
  runUserShell(command: string, signal: AbortSignal): Promise<ToolResult>;
  /** `/permissions`: the allow and deny rules in force with where each came from, and the live conversation's "always" answers. */
  permissionRules(): PermissionRulesInfo;
  /** Forgets "always" answers of the live conversation: the one written as `rule`, or all of them. Returns how many went. */
  removeApprovals(rule?: string): number;
  /** The interactive front end's prompt; without one (and without canUseTool) calls that would ask are denied. */
  setAsker(asker: AskUser | undefined): void;
  /**
   * The one way input becomes a turn, for every front end: session commands (`/compact`, `/clear`,
   * `/model`, `/cost`, `/context`), `!command` and `# note` from a person, slash commands and skills,
   * `@file` attachments, UserPromptSubmit hooks and guardrails, and while a turn runs, steering.
   * Front ends only render the outcome.
   */
  submit(input: SubmitInput): Promise<SubmitOutcome>;
  /** The session commands `submit` runs itself, for front ends' command lists. */
  readonly commands: readonly SessionCommand[];
  /** What `submit` would send for this text (slash commands, skills and triggers expanded), without sending it. */
  preparePrompt(text: string): Promise<Prepared>;
  /** `# note`: saved to the project's AGENTS.md or the user's; returns a line to show. */
  saveMemoryNote(target: NoteTarget, text: string): Promise<string>;
  /** `/memory`: the project's AGENTS.md, the agent's .beans/memory.md and the user's AGENTS.md. */
  memoryFiles(): Promise<MemoryFileInfo[]>;
  /** Summarises the conversation so far into a compaction note; returns a line to show. */
  compact(signal: AbortSignal, focus?: string): Promise<string>;
  /** Replaces the live conversation with a fresh one, or with a stored one (`resumeId`). */
  newConversation(resumeId?: string, model?: string): Promise<ChatSession>;
  describeProfile(): string;
  /** What `system/init` reports: model, tools, agents, skills, commands, plugins, mode. */
  initInfo(): SessionInitInfo;
  /** The MCP servers of this session, with their status and tools (`/mcp`, `beans mcp list`, `system/init`). */
  mcpServers(): McpServerStatus[];
  /**
   * Starts the MCP servers whose tools were offered from memory (`mcpFromLastRun`); otherwise they
   * start when the model first answers. Chat calls it once its prompt is drawn.
   */
  startMcpServers(): void;
  /** Disables a server (its tools leave the next request) or enables it again; throws for an unknown name. */
  toggleMcpServer(name: string, enabled: boolean): Promise<void>;
  /** Closes a server's connection and connects again; throws with its error if it does not connect. */
  reconnectMcpServer(name: string): Promise<void>;
  /**
   * Claude Code's setMcpServers: `{ name: config }` in its mcpServers shape replaces the servers an
   * earlier call set (servers the session started with stay unless a call names them).
   */
  setMcpServers(servers: Record<string, unknown>): Promise<McpSetServersResult>;
  /** The agent holding the conversation: the profile's, or the one it was handed off to. */
  readonly activeAgent: string;
  /** `/agent <name>`: hands the conversation to that agent by hand (any agent; throws a UsageError naming the valid ones). */
  switchAgent(name: string): Promise<void>;
  /** The conversation of the subagent that the live conversation's task call `toolCallId` ran (also after a resume). */
  subagentTranscript(toolCallId: string): SubagentTranscript | undefined;
  /** Notification hooks, e.g. when the agent has been waiting for the person for a while. */
  notify(message: string): Promise<void>;
  /** The agents the `task` tool offers (`general-purpose`, inline, plugin agents). */
  readonly subagents: readonly SubagentDefinition[];
  /** Runs an agent as a child of this session, exactly as the `task` tool does (workflows' `call` steps). */
  runSubagent(agent: SubagentDefinition, prompt: string, signal: AbortSignal): Promise<SubagentOutcome>;
  /** Every event of every child; the definition object is the one passed to runSubagent. */
  onSubagentEvent(listener: (agent: SubagentDefinition, event: AgentEvent) => void): () => void;
  /** SessionEnd hooks (`other` by default, `prompt_input_exit` when the user leaves chat); call before close(). */
  end(reason?: 'clear' | 'logout' | 'prompt_input_exit' | 'other'): Promise<void>;
  /** File checkpoints of the live conversation: list them, rewind code and/or conversation to a user message. */
  readonly checkpoints: SessionCheckpoints;
  /**
   * Stops the run, releases the session log and terminates MCP servers; resolves once telemetry is
   * exported (at most ~1.5 s with a collector that is down).
   */
  /** Background commands (`shell` with run_in_background): list, read, kill; close() stops them unless kept. */
  readonly backgroundTasks: BackgroundTasks;
  /** The declared language servers with their state (none started until a file of their language is touched). */
  lspServers(): LspServerStatus[];
  /** The `statusLine` setting in force: absent when unset, or when the repository changed it since it was trusted and nobody approved it. */
  readonly statusLine?: { command: string; padding: number };
  /** `/rename`: names the live conversation in its session file (the resume picker shows the name). */
  renameSession(title: string): void;
  /** The session file of the live conversation (Claude Code's `transcript_path`); '' when sessions are not stored. */
  transcriptPath(): string;
  close(): Promise<void>;
}

export interface PermissionRulesInfo {
  allow: { rule: string; source: string }[];
  deny: { rule: string; source: string }[];
  /** Rules "always" answers added in this conversation, as written. */
  approved: string[];
  /** The read-only rule (`ls`, `git status` run without asking) and the setting that decided it. */
  readOnlyCommands: { enabled: boolean; source: string };
}
