import { fileURLToPath } from 'node:url';
import {
  ChatSession,
  ConfigError,
  ProviderError,
  SessionStore,
  ToolRegistry,
  buildSystemPrompt,
  builtinTools,
  configDir,
  createAuthorize,
  createClient,
  createLoadSkillTool,
  defaultProviderId,
  exitCodeForFailure,
  getProvider,
  loadConfig,
  loadContextFiles,
  loadPlugins,
  modelForProvider,
  parseToolRules,
  pluginRoots,
  registerBuiltinProviders,
  reportBuiltinClashes,
  repairHistory,
  resolveModelAlias,
  resolveProfile,
  resolveWorkspace,
  sessionsDir,
  type AgentMessage,
  type LLMClient,
  type LoadedConfig,
  type AskUser,
  type PluginCatalog,
  type Profile,
  type SessionMetaInput,
  type SessionWriter,
  type Workspace,
} from '@beans/core';
import { configFlags, type CliOptions } from './options.js';
import { generateProfile } from './generate-profile.js';

/** The built-in plugins ship beside the packages: <repo>/plugins. */
export const BUILTIN_PLUGINS_DIR = fileURLToPath(new URL('../../../plugins', import.meta.url));

export interface Base {
  env: NodeJS.ProcessEnv;
  workspace: Workspace;
  config: LoadedConfig;
  configDir: string;
}

/** Workspace and configuration: what every command needs. Warnings go to stderr once. */
export async function loadBase(options: CliOptions): Promise<Base> {
  const env = process.env;
  const workspace = resolveWorkspace(process.cwd());
  const config = await loadConfig({ workspaceRoot: workspace.root, env, flags: configFlags(options) });
  for (const warning of config.warnings) process.stderr.write(`beans: warning: ${warning}\n`);
  return { env, workspace, config, configDir: configDir(env) };
}

export async function loadCatalog(base: Base): Promise<PluginCatalog> {
  const roots = pluginRoots({
    builtinDir: BUILTIN_PLUGINS_DIR,
    workspaceRoot: base.workspace.root,
    configDir: base.configDir,
    extraDirs: base.config.values.plugins.dirs,
  });
  const catalog = await loadPlugins({ roots, disabled: base.config.values.plugins.disabled });
  reportBuiltinClashes(catalog);
  return catalog;
}

export function sessionStore(base: Base): SessionStore {
  return new SessionStore(sessionsDir(base.env, base.workspace.root, base.config.values.sessions.dir));
}

export function providerIdOf(base: Base): string {
  registerBuiltinProviders();
  const id = base.config.values.provider ?? defaultProviderId(base.env);
  if (!getProvider(id)) throw new ConfigError(`Unknown provider "${id}". Use --provider gemini or --provider ollama.`);
  return id;
}

export async function clientFor(base: Base, providerId: string): Promise<LLMClient> {
  const values = base.config.values;
  return createClient(providerId, {
    model: modelForProvider(values, providerId),
    baseUrl: providerId === 'ollama' ? values.ollama.host : values.gemini.baseUrl,
    env: base.env,
  });
}

/** The model to use: the configured one, or the provider's pick (Ollama chooses an installed tool-capable model). */
export async function resolveModel(client: LLMClient): Promise<{ model: string; note?: string }> {
  const resolved = await client.resolveModel();
  if ('failure' in resolved) throw new ProviderError(resolved.failure.message, resolved.failure.kind, exitCodeForFailure(resolved.failure));
  return resolved;
}

export interface App {
  base: Base;
  catalog: PluginCatalog;
  profile: Profile;
  providerId: string;
  client: LLMClient;
  /** A line for the user when the provider picked the model itself. */
  modelNote?: string;
  session: ChatSession;
  store: SessionStore;
  /** Replaced by the interactive UI; one-shot runs have none, so calls that would ask are denied. */
  setAsker(asker: AskUser | undefined): void;
  /** Builds a new session on the same profile and tools: fresh, or from stored history; on the given model. */
  newSession(resumeId?: string, model?: string): Promise<ChatSession>;
}

/** Wires configuration, plugins, the profile, the provider, tools, permissions and the session log into one session. */
export async function createApp(options: CliOptions, mode: 'chat' | 'one-shot'): Promise<App> {
  const base = await loadBase(options);
  const values = base.config.values;
  const catalog = await loadCatalog(base);
  const providerId = providerIdOf(base);
  const client = await clientFor(base, providerId);
  // The profile comes first, so a mistyped --agent-profile is reported without touching the network.
  let resolving: Promise<{ model: string; note?: string }> | undefined;
  const modelOnce = () => (resolving ??= resolveModel(client));
  const profile = await resolveProfile({
    agentProfile: options.agentProfile,
    agentDescription: options.agentDescription,
    workspaceRoot: base.workspace.root,
    catalog,
    generate: async (description) => generateProfile(client, (await modelOnce()).model, description),
  });
  const resolved = await modelOnce();
  let model = resolved.model;
  // An agent's `model:` (an alias like sonnet, or a concrete id) applies unless --model was given.
  if (profile.model && !options.model) model = resolveModelAlias(providerId, profile.model, model);

  const allTools = [...builtinTools(), createLoadSkillTool(catalog)];
  const deny = parseToolRules(values.permissions.deny);
  // A bare tool name in the deny list removes the tool: the model never sees it.
  const removed = new Set(deny.filter((rule) => rule.pattern === undefined).map((rule) => rule.tool));
  let tools = new ToolRegistry(allTools.filter((tool) => !removed.has(tool.name)));
  if (profile.tools) tools = tools.only(profile.tools);

  let asker: AskUser | undefined;
  const allow = parseToolRules(values.permissions.allow);
  // One per session: "always" answers must not outlive /clear or /resume.
  const authorizeForSession = () =>
    createAuthorize({
      mode: values.permissions.mode,
      allow,
      deny,
      workspace: base.workspace,
      ask: mode === 'chat' ? (request, signal) => (asker ? asker(request, signal) : Promise.resolve({ decision: 'deny', reason: 'No one is there to approve it.' })) : undefined,
    });

  const contextFiles = await loadContextFiles({ configDir: base.configDir, workspace: base.workspace });
  const systemPrompt = buildSystemPrompt({ profile, contextFiles, skills: catalog.skills(), workspace: base.workspace });
  const store = sessionStore(base);

  const newSession = async (resumeId?: string, sessionModel = model): Promise<ChatSession> => {
    let history: AgentMessage[] = [];
    let id: string | undefined;
    let writer: SessionWriter | undefined;
    let sop = values.sop;
    if (resumeId) {
      const loaded = store.load(resumeId);
      for (const warning of loaded.warnings) process.stderr.write(`beans: warning: ${warning}\n`);
      history = repairHistory(loaded.messages);
      id = loaded.header.id;
      writer = store.open(id);
      // The session's own model and SOP come back, unless this run names a model itself.
      if (loaded.model && loaded.provider === providerId && !options.model) sessionModel = loaded.model;
      if (loaded.sop !== undefined) sop = loaded.sop;
    } else {
      id = store.newId();
    }
    const sessionId = id;
    // Changes made before the first message wait for it: a session file is only made for a conversation.
    const pendingChanges: SessionMetaInput[] = [];
    const openWriter = () => {
      if (!writer) {
        writer = store.create({ id: sessionId, cwd: base.workspace.cwd, workspaceRoot: base.workspace.root, provider: providerId, model: session.model });
        for (const change of pendingChanges.splice(0)) writer.appendMeta(change);
      }
      return writer;
    };
    const session: ChatSession = new ChatSession({
      id: sessionId,
      client,
      provider: providerId,
      model: sessionModel,
      systemPrompt,
      sop,
      tools,
      workspace: base.workspace,
      authorize: authorizeForSession(),
      maxTurns: values.maxTurns,
      maxBudgetUsd: values.maxBudgetUsd,
      messages: history,
      // The file is created with the first message, so opening and closing chat leaves no empty session.
      record: (message) => openWriter().append(message),
      onClose: () => writer?.close(),
      recordChange: (change) => (writer ? writer.appendMeta(change) : pendingChanges.push(change)),
    });
    return session;
  };

  let resumeId: string | undefined;
  if (options.resume) resumeId = store.resolveId(options.resume);
  else if (options.continue) {
    resumeId = store.newest()?.id;
    if (!resumeId) process.stderr.write('beans: no earlier session in this workspace; starting a new one.\n');
  }
  const session = await newSession(resumeId);

  return {
    base,
    catalog,
    profile,
    providerId,
    client,
    modelNote: resolved.note,
    session,
    store,
    setAsker: (next) => {
      asker = next;
    },
    newSession,
  };
}
