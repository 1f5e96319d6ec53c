import type {
  AgentMessage,
  AskUser,
  BackgroundTasks,
  ChatSession,
  SessionCheckpoints,
  MemoryFileInfo,
  ModelInfo,
  NoteTarget,
  PermissionMode,
  PermissionRulesInfo,
  ToolResult,
  SubmitInput,
  SubmitOutcome,
} from '@beans/core';

/** A slash command as the input box offers it: built-in, plugin command, or skill. */
export interface SlashCommandInfo {
  name: string;
  description: string;
  argumentHint?: string;
  source: 'builtin' | 'command' | 'skill';
}

export interface SessionListing {
  id: string;
  startedAt: string;
  lastActivity: string;
  turns: number;
  /** Messages the user sent; the picker counts turns by these. */
  prompts?: number;
  firstPrompt: string;
  /** The name `/rename` gave it. */
  title?: string;
  model?: string;
  /** The branch checked out when it began. */
  gitBranch?: string;
  /** Its workspace (listings of every workspace hold other folders' sessions too). */
  workspaceRoot?: string;
}

export type { AskAnswer } from '@beans/core';
export type PermissionAsker = AskUser;

/** The settings the chat screen reads: `ui.theme`, `ui.markdown`, `ui.showCost` and `debug`. */
export interface ChatDisplay {
  theme: 'dark' | 'light' | 'high-contrast';
  /** false: answers are shown as the model wrote them, without Markdown rendering. */
  markdown: boolean;
  /** false: no cost in the status line. */
  showCost: boolean;
  /** Error stacks and one line of figures per turn. */
  debug: boolean;
  /** The input's key bindings at the start (`editorMode`); `/vim` switches them. */
  editorMode?: 'normal' | 'vim';
}

/**
 * Everything the interactive UI needs, and nothing about how it is built: the CLI wires plugins,
 * config and the session store behind this, so the UI holds no agent logic.
 */
export interface ChatHost {
  /** The live session; replaced by `resume` and `clear` (subscribe again on `onSessionChange`). */
  readonly session: ChatSession;
  onSessionChange(listener: (session: ChatSession) => void): () => void;
  /** File checkpoints of the live conversation (`/rewind`, Esc Esc). */
  readonly checkpoints: SessionCheckpoints;
  readonly header: { profile: string; profileSource: string; provider: string; workspace: string };
  /** Plugin commands and skills; the UI adds its own built-in commands. */
  readonly commands: SlashCommandInfo[];
  readonly display: ChatDisplay;
  /** Said once at the start (the model the provider picked, settings and plugin warnings); the transcript keeps them. */
  readonly startupNotices: { kind: 'info' | 'warning'; text: string }[];
  /** The model's background commands (`/tasks`, the status line's count); absent in hosts without them. */
  readonly backgroundTasks?: BackgroundTasks;
  /** The `statusLine` setting in force (absent when unset, or a repository's not approved since trust), with where its command runs. */
  readonly statusLine?: { command: string; padding: number; cwd: string; env: NodeJS.ProcessEnv };
  /** The live conversation's session file (a status line command's `transcript_path`); '' when not stored. */
  transcriptPath(): string;
  /** `/status`: whether the workspace's own settings, hooks and commands are trusted. */
  readonly workspaceTrusted: boolean;
  /** Settings files that were read, highest precedence first. */
  readonly settingsFiles: string[];
  /** `/config`: every setting in force, with the file (or flag, env, default) it came from. */
  configEntries(): { key: string; value: unknown; source: string }[];
  /** Writes one setting to the user's settings file (`/theme`); returns the file. Throws on a bad value. */
  saveUserSetting(key: string, value: string): Promise<string>;
  /** `!command`: runs what the user typed in the workspace, as the shell tool does. */
  runShell(command: string, signal: AbortSignal): Promise<ToolResult>;
  /** The permission mode; Shift+Tab changes it for the rest of the session. */
  permissionMode: PermissionMode;
  /** `/permissions`: rules in force with their sources, and this conversation's "always" answers. */
  permissionRules(): PermissionRulesInfo;
  /** Forgets this conversation's "always" answers: the one written as `rule`, or all. Returns how many went. */
  removeApprovals(rule?: string): number;
  /** The UI installs its confirmation prompt here. */
  setPermissionAsker(asker: PermissionAsker): void;
  /** /hooks: each hook with its event, matcher and source. */
  listHooks(): { event: string; matcher?: string; command: string; source: string }[];
  /** /plugins: each loaded plugin with its version, where it came from, and what it holds. */
  listPlugins(): Promise<{ name: string; version?: string; from: string; contents: string }[]>;
  /** /lsp: each declared language server with its live state. */
  listLspServers(): { name: string; origin: string; state: string; languages: string[]; pid?: number; restarts: number; problem?: string }[];
  /** /mcp: each MCP server with its status and tools. */
  /** `deferred`: the session lists this server's tools by name only; `loaded` are those tool_search loaded. */
  listMcpServers(): { name: string; status: string; tools: string[]; error?: string; deferred?: { loaded: string[] } }[];
  /** /mcp enable|disable <server>: for the rest of the session; a disabled server's tools leave the next request. */
  toggleMcpServer(name: string, enabled: boolean): Promise<void>;
  /** /mcp reconnect <server>: rejects with the server's error when it does not connect. */
  reconnectMcpServer(name: string): Promise<void>;
  /** Notification hooks (the agent has been idle, waiting for the person). */
  notify(message: string): void;
  /** What the user typed (a prompt, `/command`, `@path`, `!command`, `# note`), through core's one submit path. */
  submit(input: SubmitInput): Promise<SubmitOutcome>;
  /** Ctrl+V: the clipboard's picture saved as a file (its path goes into the prompt), or why there is none. */
  pasteImage?(): Promise<{ path: string } | { error: string }>;
  /** `/profile`: the active profile and which step of the chain chose it. */
  describeProfile(): string;
  /** `active` marks the agent that holds the conversation (the profile's, or one it was handed off to). */
  listAgents(): { name: string; description: string; active?: boolean }[];
  /** `/agent <name>`: hands the conversation to that agent; throws with the valid names when there is none. */
  switchAgent(name: string): Promise<void>;
  /** The stored conversation of the child a task call ran (a resumed session shows it under the task). */
  subagentTranscript(toolCallId: string): { agent: string; messages: AgentMessage[] } | undefined;
  listSkills(): { name: string; description: string }[];
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>;
  /** Switches the model of the live session; returns a line to show. */
  switchModel(name: string): Promise<string>;
  /** This workspace's sessions, or (`everywhere`) the newest sessions of every workspace. */
  listSessions(scope?: 'workspace' | 'everywhere'): Promise<SessionListing[]>;
  /** `/rename <name>`: names the live session (the resume picker shows and searches the name). */
  renameSession(title: string): void;
  /** The prompts typed in a stored session, oldest first (the resume picker searches and previews them). */
  sessionPrompts(id: string): Promise<string[]>;
  /** Ctrl+R: the prompts typed in this workspace's stored sessions, newest first, each once. */
  promptHistory(): Promise<string[]>;
  /** Replaces the live session with a stored one. */
  resume(id: string): Promise<void>;
  /** Starts a fresh session (new id) with the same profile. */
  clear(): Promise<void>;
  /** Summarises older turns into a compaction note; returns a line to show. */
  compact(signal: AbortSignal, focus?: string): Promise<string>;
  /** Workspace files for `@path` completion (relative paths). */
  completePath(prefix: string): Promise<string[]>;
  /** The model's context window in tokens, when known. */
  contextWindow(): number | undefined;
  /** Work the prompt must not wait for (asking the provider for the context window); called once it is drawn. */
  afterFirstFrame(): void;
  /** /memory: the project's AGENTS.md, the agent's .beans/memory.md and the user's AGENTS.md. */
  memoryFiles(): Promise<MemoryFileInfo[]>;
  /** A `#` note from the input, saved to the project's or the user's memory; returns a line to show. */
  saveMemoryNote(target: NoteTarget, text: string): Promise<string>;
  /** Opens a file in the user's $EDITOR and waits for it; returns a line to show. */
  editFile(file: string): Promise<string>;
  /**
   * `/background`: once the chat is left, the session server continues this session (with `prompt`,
   * when given); absent where the session already lives in the server (an attached view).
   */
  continueInBackground?(prompt: string): void;
}
