import { formatConfigSource, programEnvironment, setConfigValue, userSettingsPath, type AgentSession, type AskUser, type SessionSummary } from '@beans/core';
import { openInEditor } from './open-editor.js';

export type { AskAnswer, SlashCommandInfo } from '@beans/core';
export type PermissionAsker = AskUser;
/** A stored session as the resume picker lists it. */
export type SessionListing = SessionSummary;

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

/** The members of the session the chat uses: the session's own interface, nothing forwarded. */
type SessionMembers =
  | 'session'
  | 'onSessionChange'
  | 'checkpoints'
  | 'transcriptPath'
  | 'workspaceTrusted'
  | 'backgroundTasks'
  | 'runUserShell'
  | 'permissionMode'
  | 'permissionRules'
  | 'removeApprovals'
  | 'setAsker'
  | 'listHooks'
  | 'listPlugins'
  | 'lspServers'
  | 'mcpServers'
  | 'toggleMcpServer'
  | 'reconnectMcpServer'
  | 'startMcpServers'
  | 'notify'
  | 'submit'
  | 'describeProfile'
  | 'listAgents'
  | 'switchAgent'
  | 'subagentTranscript'
  | 'listSkills'
  | 'slashCommands'
  | 'listModels'
  | 'switchModel'
  | 'contextWindow'
  | 'lookUpContextWindow'
  | 'listSessions'
  | 'renameSession'
  | 'sessionPrompts'
  | 'promptHistory'
  | 'resumeSession'
  | 'newConversation'
  | 'compact'
  | 'completePath'
  | 'memoryFiles'
  | 'saveMemoryNote';

/** What only the terminal chat adds: how the session is presented, and the local machine's clipboard and editor. */
export interface ChatExtras {
  readonly header: { profile: string; profileSource: string; provider: string; workspace: string };
  readonly display: ChatDisplay;
  /** Said once at the start (the model the provider picked, settings and plugin warnings); the transcript keeps them. */
  readonly startupNotices: { kind: 'info' | 'warning'; text: string }[];
  /** The `statusLine` setting in force (absent when unset, or a repository's not approved since trust), with where its command runs. */
  readonly statusLine?: { command: string; padding: number; cwd: string; env: NodeJS.ProcessEnv };
  /** Settings files that were read, highest precedence first. */
  readonly settingsFiles: string[];
  /** `/config`: every setting in force, with the file (or flag, env, default) it came from. */
  configEntries(): { key: string; value: unknown; source: string }[];
  /** Writes one setting to the user's settings file (`/theme`); returns the file. Throws on a bad value. */
  saveUserSetting(key: string, value: string): Promise<string>;
  /** Ctrl+V: the clipboard's picture saved as a file (its path goes into the prompt), or why there is none. */
  pasteImage?(): Promise<{ path: string } | { error: string }>;
  /** Opens a file in the user's $EDITOR and waits for it; returns a line to show. */
  editFile(file: string): Promise<string>;
  /**
   * `/background`: once the chat is left, the session server continues this session (with `prompt`,
   * when given); absent where the session already lives in the server (an attached view).
   */
  continueInBackground?(prompt: string): void;
}

/** What the chat draws and drives: the session itself, plus the terminal's extras. */
export type ChatAgent = Pick<AgentSession, SessionMembers> & ChatExtras;

/**
 * The chat's view of a session: the session object itself (its getters stay live through the
 * prototype) with the terminal's extras on top.
 */
export function chatAgentOf(app: AgentSession, extras: Partial<ChatExtras> = {}): ChatAgent {
  const values = app.config.values;
  const own: ChatExtras = {
    header: { profile: app.profile.name, profileSource: app.profile.source, provider: app.providerId, workspace: app.workspace.root },
    display: {
      theme: values.ui.theme ?? 'dark',
      markdown: values.ui.markdown,
      showCost: values.ui.showCost,
      debug: values.debug,
      editorMode: values.editorMode,
    },
    startupNotices: [
      ...(app.modelNote ? [{ kind: 'info' as const, text: app.modelNote }] : []),
      ...app.warnings.map((text) => ({ kind: 'warning' as const, text })),
    ],
    ...(app.statusLine ? { statusLine: { ...app.statusLine, cwd: app.workspace.cwd, env: programEnvironment(app.base) } } : {}),
    settingsFiles: app.config.files,
    configEntries: () => app.config.entries.map((entry) => ({ key: entry.key, value: entry.value, source: formatConfigSource(entry.source) })),
    saveUserSetting: async (key, value) => (await setConfigValue({ file: userSettingsPath(app.base.env), key, value })).file,
    pasteImage: async () => (await import('./clipboard-image.js')).pasteClipboardImage(),
    editFile: async (file) => openInEditor(file, app.base.env),
  };
  return Object.assign(Object.create(app) as AgentSession, own, extras);
}
