import { describeProfile, walkFiles, type ChatSession } from '@beans/core';
import type { App } from './bootstrap.js';
import type { ChatHost, PermissionAsker, SessionListing, SlashCommandInfo } from './chat-host.js';
import { compactSession } from './compact.js';
import { preparePrompt } from './prepare-prompt.js';

const FILE_LIST_MAX_AGE_MS = 5_000;

/** The interactive UI's view of the app: everything behind the ChatHost interface. */
export function createChatHost(app: App): ChatHost {
  let session = app.session;
  const listeners = new Set<(session: ChatSession) => void>();
  const replace = (next: ChatSession) => {
    session.close();
    session = next;
    for (const listener of listeners) listener(next);
  };
  // Workspace files for @path completion, .gitignore honoured; refreshed when a few seconds old.
  let files: { list: Promise<string[]>; at: number } | undefined;
  // Looked up in the background: the first frame must not wait for the provider.
  let contextWindow: number | undefined;
  const lookUpContextWindow = () =>
    void app.client
      .listModels()
      .then((models) => {
        contextWindow = models.find((model) => model.name === session.model)?.contextWindow;
      })
      .catch(() => undefined);
  lookUpContextWindow();

  const commands: SlashCommandInfo[] = [
    ...app.catalog.commands().map((command) => ({ name: command.name, description: command.description, argumentHint: command.argumentHint, source: 'command' as const })),
    ...app.catalog.skills().map((skill) => ({ name: skill.name, description: skill.description, source: 'skill' as const })),
  ];

  return {
    get session() {
      return session;
    },
    onSessionChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    header: {
      profile: app.profile.name,
      profileSource: app.profile.source,
      provider: app.providerId,
      workspace: app.base.workspace.root,
    },
    commands,
    setPermissionAsker(asker: PermissionAsker) {
      app.setAsker(asker);
    },
    preparePrompt: (text) => preparePrompt(text, app.catalog),
    describeProfile: () => describeProfile(app.profile),
    listAgents: () => app.catalog.agents().map((agent) => ({ name: agent.plugin ? `${agent.plugin}:${agent.name}` : agent.name, description: agent.description })),
    listSkills: () => app.catalog.skills().map((skill) => ({ name: skill.name, description: skill.description })),
    listModels: (signal) => session.client.listModels(signal),
    async switchModel(name) {
      const models = await session.client.listModels().catch(() => []);
      if (models.length > 0 && !models.some((model) => model.name === name)) {
        return `Unknown model "${name}". Available: ${models.map((model) => model.name).join(', ')}`;
      }
      session.setModel(name);
      contextWindow = undefined;
      lookUpContextWindow();
      return `Model switched to ${name}.`;
    },
    listSessions: async (): Promise<SessionListing[]> => app.store.list(),
    async resume(id) {
      replace(await app.newSession(app.store.resolveId(id), session.model));
    },
    async clear() {
      replace(await app.newSession(undefined, session.model));
    },
    compact: (signal) => compactSession(session, signal),
    async completePath(prefix) {
      if (!files || Date.now() - files.at > FILE_LIST_MAX_AGE_MS) {
        const root = app.base.workspace.root;
        files = { at: Date.now(), list: walkFiles(root, { absolute: root, relative: '.' }, '**/*', { stats: false }).then((walk) => walk.files.map((file) => file.path)) };
      }
      const lower = prefix.toLowerCase();
      return (await files.list).filter((file) => file.toLowerCase().startsWith(lower)).slice(0, 50);
    },
    contextWindow: () => contextWindow,
  };
}
