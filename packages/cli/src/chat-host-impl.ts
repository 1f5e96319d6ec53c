import path from 'node:path';
import {
  PluginStore,
  describeHookSource,
  programEnvironment,
  sessionPrompts,
  storedPrompts,
  formatConfigSource,
  memoryFiles,
  saveNote,
  setConfigValue,
  userSettingsPath,
  walkFiles,
  type AgentSession,
} from '@beans/core';
import { openInEditor } from './open-editor.js';
import type { ChatHost, PermissionAsker, SessionListing, SlashCommandInfo } from './chat-host.js';

const FILE_LIST_MAX_AGE_MS = 5_000;

/** The interactive UI's view of the agent session: everything behind the ChatHost interface. */
export function createChatHost(app: AgentSession, extras: Pick<ChatHost, 'continueInBackground'> = {}): ChatHost {
  // Workspace files for @path completion, .gitignore honoured; refreshed when a few seconds old.
  let files: { list: Promise<string[]>; at: number } | undefined;
  // Looked up after the first frame (afterFirstFrame): the request loads the HTTP client, ~20 ms.
  let contextWindow: number | undefined;
  const lookUpContextWindow = () =>
    void app.client
      .listModels()
      .then((models) => {
        contextWindow = models.find((model) => model.name === app.session.model)?.contextWindow;
      })
      .catch(() => undefined);

  const commands: SlashCommandInfo[] = [
    ...app.catalog
      .commands()
      .map((command) => ({ name: command.name, description: command.description, argumentHint: command.argumentHint, source: 'command' as const })),
    ...app.catalog.skills().map((skill) => ({ name: skill.name, description: skill.description, source: 'skill' as const })),
  ];

  return {
    get session() {
      return app.session;
    },
    onSessionChange: (listener) => app.onSessionChange(listener),
    get checkpoints() {
      return app.checkpoints;
    },
    header: {
      profile: app.profile.name,
      profileSource: app.profile.source,
      provider: app.providerId,
      workspace: app.workspace.root,
    },
    commands,
    display: {
      theme: app.config.values.ui.theme ?? 'dark',
      markdown: app.config.values.ui.markdown,
      showCost: app.config.values.ui.showCost,
      debug: app.config.values.debug,
      editorMode: app.config.values.editorMode,
    },
    startupNotices: [
      ...(app.modelNote ? [{ kind: 'info' as const, text: app.modelNote }] : []),
      ...app.warnings.map((text) => ({ kind: 'warning' as const, text })),
    ],
    workspaceTrusted: app.workspaceTrusted,
    ...(app.statusLine ? { statusLine: { ...app.statusLine, cwd: app.workspace.cwd, env: programEnvironment(app.base) } } : {}),
    transcriptPath: () => app.transcriptPath(),
    backgroundTasks: app.backgroundTasks,
    settingsFiles: app.config.files,
    configEntries: () => app.config.entries.map((entry) => ({ key: entry.key, value: entry.value, source: formatConfigSource(entry.source) })),
    async saveUserSetting(key, value) {
      return (await setConfigValue({ file: userSettingsPath(app.base.env), key, value })).file;
    },
    runShell: (command, signal) => app.runUserShell(command, signal),
    get permissionMode() {
      return app.permissionMode;
    },
    set permissionMode(mode) {
      app.permissionMode = mode;
    },
    permissionRules: () => app.permissionRules(),
    removeApprovals: (rule) => app.removeApprovals(rule),
    setPermissionAsker(asker: PermissionAsker) {
      app.setAsker(asker);
    },
    pasteImage: async () => (await import('./clipboard-image.js')).pasteClipboardImage(),
    submit: (input) => app.submit(input),
    notify: (message) => void app.notify(message).catch(() => undefined),
    listHooks: () =>
      app.hookSet.hooks.map((hook) => ({ event: hook.event, matcher: hook.matcher, command: hook.command, source: describeHookSource(hook.source) })),
    async listPlugins() {
      const store = new PluginStore(app.base.configDir);
      const installed = (await store.state().catch(() => undefined))?.plugins ?? {};
      return app.catalog.plugins.map((plugin) => {
        // Installed from a marketplace only when it is the copy in the user's plugin folder.
        const install = plugin.root === path.join(store.pluginsDir, plugin.name) ? installed[plugin.name] : undefined;
        const counts = [
          [plugin.agents.length, 'agent'],
          [plugin.skills.length, 'skill'],
          [plugin.commands.length, 'command'],
        ] as const;
        return {
          name: plugin.name,
          ...(plugin.version ? { version: plugin.version } : {}),
          from: install ? `${install.marketplace}: ${install.source}` : plugin.root,
          contents:
            counts
              .filter(([count]) => count > 0)
              .map(([count, noun]) => `${count} ${noun}${count === 1 ? '' : 's'}`)
              .join(', ') || 'hooks or servers only',
        };
      });
    },
    listLspServers: () => app.lspServers(),
    listMcpServers: () =>
      app.mcpServers().map((server) => ({
        name: server.name,
        status: server.status,
        tools: server.tools,
        ...(server.error ? { error: server.error } : {}),
        ...(server.deferred ? { deferred: server.deferred } : {}),
      })),
    toggleMcpServer: (name, enabled) => app.toggleMcpServer(name, enabled),
    reconnectMcpServer: (name) => app.reconnectMcpServer(name),
    describeProfile: () => app.describeProfile(),
    listAgents: () =>
      app.catalog.agents().map((agent) => ({
        name: agent.plugin ? `${agent.plugin}:${agent.name}` : agent.name,
        description: agent.description,
        ...(agent.name === app.activeAgent || agent.qualifiedName === app.activeAgent ? { active: true } : {}),
      })),
    switchAgent: (name) => app.switchAgent(name),
    subagentTranscript: (toolCallId) => app.subagentTranscript(toolCallId),
    listSkills: () => app.catalog.skills().map((skill) => ({ name: skill.name, description: skill.description })),
    listModels: (signal) => app.client.listModels(signal),
    async switchModel(name) {
      const models = await app.client.listModels().catch(() => []);
      if (models.length > 0 && !models.some((model) => model.name === name)) {
        return `Unknown model "${name}". Available: ${models.map((model) => model.name).join(', ')}`;
      }
      app.session.setModel(name);
      contextWindow = undefined;
      lookUpContextWindow();
      return `Model switched to ${name}.`;
    },
    listSessions: async (scope): Promise<SessionListing[]> => (scope === 'everywhere' ? app.store?.listEveryWorkspace() : app.store?.list()) ?? [],
    renameSession: (title) => app.renameSession(title),
    sessionPrompts: async (id) => (app.store ? sessionPrompts(app.store.pathOf(id)) : []),
    promptHistory: async () => (app.store ? (await storedPrompts(app.store.dir)).map((prompt) => prompt.text) : []),
    async resume(id) {
      if (!app.store) throw new Error('This session keeps no history, so there is nothing to resume.');
      await app.newConversation(app.store.resolveId(id));
    },
    async clear() {
      await app.newConversation();
    },
    compact: (signal, focus) => app.compact(signal, focus),
    async completePath(prefix) {
      if (!files || Date.now() - files.at > FILE_LIST_MAX_AGE_MS) {
        const root = app.workspace.root;
        files = {
          at: Date.now(),
          list: walkFiles(root, { absolute: root, relative: '.' }, '**/*', { stats: false }).then((walk) => walk.files.map((file) => file.path)),
        };
      }
      const lower = prefix.toLowerCase();
      return (await files.list).filter((file) => file.toLowerCase().startsWith(lower)).slice(0, 50);
    },
    contextWindow: () => contextWindow,
    afterFirstFrame: () => {
      lookUpContextWindow();
      app.startMcpServers();
    },
    memoryFiles: () => memoryFiles({ workspaceRoot: app.workspace.root, configDir: app.base.configDir }),
    saveMemoryNote: (target, text) => saveNote(target, text, { workspaceRoot: app.workspace.root, configDir: app.base.configDir }),
    editFile: async (file) => openInEditor(file, app.base.env),
    ...extras,
  };
}
