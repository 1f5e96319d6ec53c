import path from 'node:path';
import { describeHookSource, type HookSet } from '../hooks/index.js';
import { PluginStore, type PluginCatalog } from '../plugins/index.js';
import { sessionPrompts, storedPrompts, type SessionStore, type SessionSummary } from '../session/index.js';
import { walkFiles } from '../tools/file-walk.js';
import type { RuntimeBase } from './base.js';
import type { ChatSession } from '../agent/chat-session.js';

/** A slash command as a front end offers it: a plugin's command or a skill. */
export interface SlashCommandInfo {
  name: string;
  description: string;
  argumentHint?: string;
  source: 'builtin' | 'command' | 'skill';
}

export interface SessionListingsInput {
  base: RuntimeBase;
  catalog: PluginCatalog;
  hookSet: HookSet;
  store: SessionStore | undefined;
  /** The agent holding the conversation now (handoffs). */
  activeAgent: () => string;
  /** Replaces the live conversation (newConversation). */
  openConversation: (resumeId: string) => Promise<ChatSession>;
}

/** What a front end lists about the session: commands, skills, agents, plugins, hooks, stored sessions, workspace files. */
export interface SessionListings {
  /** The plugins' commands and skills, for a command menu (the front end adds its own built-ins). */
  slashCommands(): SlashCommandInfo[];
  listSkills(): { name: string; description: string }[];
  /** `active` marks the agent that holds the conversation (the profile's, or one it was handed off to). */
  listAgents(): { name: string; description: string; active?: boolean }[];
  /** Each loaded plugin with its version, where it came from (a marketplace, or its folder) and what it holds. */
  listPlugins(): Promise<{ name: string; version?: string; from: string; contents: string }[]>;
  /** Each configured hook with its event, matcher and source. */
  listHooks(): { event: string; matcher?: string; command: string; source: string }[];
  /** This workspace's stored sessions, or (`everywhere`) the newest sessions of every workspace. */
  listSessions(scope?: 'workspace' | 'everywhere'): Promise<SessionSummary[]>;
  /** The prompts typed in a stored session, oldest first. */
  sessionPrompts(id: string): Promise<string[]>;
  /** The prompts typed in this workspace's stored sessions, newest first, each once. */
  promptHistory(): Promise<string[]>;
  /** Replaces the live conversation with a stored one (an id or a unique prefix of one). */
  resumeSession(id: string): Promise<void>;
  /** Workspace files whose path starts with `prefix` (`@path` completion), .gitignore honoured. */
  completePath(prefix: string): Promise<string[]>;
}

/** A list of the workspace's files is this young before it is read again. */
const FILE_LIST_MAX_AGE_MS = 5_000;

export function createSessionListings(input: SessionListingsInput): SessionListings {
  const { catalog, store, base } = input;
  let files: { list: Promise<string[]>; at: number } | undefined;
  return {
    slashCommands: () => [
      ...catalog
        .commands()
        .map((command) => ({ name: command.name, description: command.description, argumentHint: command.argumentHint, source: 'command' as const })),
      ...catalog.skills().map((skill) => ({ name: skill.name, description: skill.description, source: 'skill' as const })),
    ],
    listSkills: () => catalog.skills().map((skill) => ({ name: skill.name, description: skill.description })),
    listAgents: () => {
      const active = input.activeAgent();
      return catalog.agents().map((agent) => ({
        name: agent.plugin ? `${agent.plugin}:${agent.name}` : agent.name,
        description: agent.description,
        ...(agent.name === active || agent.qualifiedName === active ? { active: true } : {}),
      }));
    },
    async listPlugins() {
      const plugins = new PluginStore(base.configDir);
      const installed = (await plugins.state().catch(() => undefined))?.plugins ?? {};
      return catalog.plugins.map((plugin) => {
        // Installed from a marketplace only when it is the copy in the user's plugin folder.
        const install = plugin.root === path.join(plugins.pluginsDir, plugin.name) ? installed[plugin.name] : undefined;
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
    listHooks: () =>
      input.hookSet.hooks.map((hook) => ({ event: hook.event, matcher: hook.matcher, command: hook.command, source: describeHookSource(hook.source) })),
    listSessions: async (scope) => (scope === 'everywhere' ? store?.listEveryWorkspace() : store?.list()) ?? [],
    sessionPrompts: async (id) => (store ? sessionPrompts(store.pathOf(id)) : []),
    promptHistory: async () => (store ? (await storedPrompts(store.dir)).map((prompt) => prompt.text) : []),
    async resumeSession(id) {
      if (!store) throw new Error('This session keeps no history, so there is nothing to resume.');
      await input.openConversation(store.resolveId(id));
    },
    async completePath(prefix) {
      if (!files || Date.now() - files.at > FILE_LIST_MAX_AGE_MS) {
        const root = base.workspace.root;
        files = {
          at: Date.now(),
          list: walkFiles(root, { absolute: root, relative: '.' }, '**/*', { stats: false }).then((walk) => walk.files.map((file) => file.path)),
        };
      }
      const lower = prefix.toLowerCase();
      return (await files.list).filter((file) => file.toLowerCase().startsWith(lower)).slice(0, 50);
    },
  };
}
