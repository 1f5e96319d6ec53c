import os from 'node:os';
import path from 'node:path';
import {
  configDir as userConfigDir,
  loadConfig,
  sessionsDir,
  type BeansConfig,
  type ConfigFlags,
  type LoadedConfig,
  type SettingSource,
} from '../config/index.js';
import { ProviderError } from '../errors.js';
import { createProviderClient, exitCodeForFailure, INTERACTIVE_RETRY_POLICY, providerKeyVariables, resolveProvider, type LLMClient } from '../llm/index.js';
import { loadPlugins, pluginRoots, PluginStore, reportBuiltinClashes, shippedPluginsDir, type PluginCatalog } from '../plugins/index.js';
import { SessionStore } from '../session/index.js';
import { toolEnvironment } from '../tools/tool-env.js';
import { resolveWorkspace, type Workspace } from '../workspace/workspace.js';

/** What every command needs before it does anything: the workspace and its configuration. */
export interface RuntimeBase {
  env: NodeJS.ProcessEnv;
  workspace: Workspace;
  config: LoadedConfig;
  /** The user's config folder (`~/.config/beans-agent`). */
  configDir: string;
}

export interface RuntimeBaseOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The highest configuration layer (command-line flags, or a library caller's options) by dotted key. */
  flags?: ConfigFlags;
  settingSources?: readonly SettingSource[];
  /** Trust the workspace's own settings for this run (`--trust`); default: the user's recorded decision. */
  trusted?: boolean;
}

/** Finds the workspace (git root, else the folder) and loads its configuration. */
export async function loadRuntimeBase(options: RuntimeBaseOptions = {}): Promise<RuntimeBase> {
  const env = options.env ?? process.env;
  const workspace = resolveWorkspace(options.cwd ?? process.cwd());
  const config = await loadConfig({
    workspaceRoot: workspace.root,
    env,
    flags: options.flags,
    settingSources: options.settingSources,
    cwd: workspace.cwd,
    trusted: options.trusted,
  });
  return { env, workspace, config, configDir: userConfigDir(env) };
}

/**
 * The environment Beans gives the programs it starts (the model's commands, hooks, MCP servers):
 * without the key of any configured provider (custom providers' apiKeyEnv too) or the
 * `tools.env.strip` names; `passThrough` names are kept.
 */
export function programEnvironment(base: RuntimeBase, passThrough: readonly string[] = []): NodeJS.ProcessEnv {
  return toolEnvironment(base.env, {
    extraKeyVars: providerKeyVariables(base.config),
    passThrough: [...passThrough],
    strip: base.config.values.tools.env.strip,
  });
}

/** The built-in plugins ship beside the packages: `<repo>/plugins`. */
export function builtinPluginsDir(): string {
  return shippedPluginsDir();
}

/** `~/.claude`: the user's Claude Code folder (CLAUDE.md, commands/, agents/, skills/). */
export function claudeHomeDir(): string {
  return path.join(os.homedir(), '.claude');
}

/** Every plugin root's plugins, in precedence order, with clashes with built-in names reported. */
export async function loadCatalog(base: RuntimeBase, builtinDir: string = builtinPluginsDir()): Promise<PluginCatalog> {
  return loadPluginCatalog({ workspaceRoot: base.workspace.root, configDir: base.configDir, settings: base.config.values.plugins, builtinDir });
}

export interface PluginCatalogInput {
  workspaceRoot: string;
  /** The user's config folder: its plugins, and the installed plugins' state. */
  configDir: string;
  /** The `plugins` settings: extra folders, and plugins turned off. */
  settings: BeansConfig['plugins'];
  /** Beans' built-in plugins (default: the packaged folder). */
  builtinDir?: string;
}

/** loadCatalog from the fields it reads. */
export async function loadPluginCatalog(input: PluginCatalogInput): Promise<PluginCatalog> {
  const roots = pluginRoots({
    builtinDir: input.builtinDir ?? builtinPluginsDir(),
    workspaceRoot: input.workspaceRoot,
    configDir: input.configDir,
    claudeHome: claudeHomeDir(),
    extraDirs: input.settings.dirs,
  });
  // Plugins turned off with `beans plugins disable` stay installed but do not load.
  const installedOff = await new PluginStore(input.configDir).disabledPlugins().catch(() => []);
  const catalog = await loadPlugins({ roots, disabled: [...input.settings.disabled, ...installedOff] });
  reportBuiltinClashes(catalog);
  return catalog;
}

export function sessionStore(base: RuntimeBase): SessionStore {
  return new SessionStore(sessionsDir(base.env, base.workspace.root, base.config.values.sessions.dir));
}

/**
 * The configured provider, else the first configured of gemini, anthropic, openai, else Ollama. An
 * unknown name is bad usage on the command line (exit 2) and a configuration error naming where it
 * was set otherwise (exit 3).
 */
export function providerIdOf(base: Pick<RuntimeBase, 'config' | 'env'>): string {
  return resolveProvider(base.config, base.env).providerId;
}

/** `interactive`: the chat's longer retry defaults; the `retry` settings win over either default. */
export async function clientFor(base: Pick<RuntimeBase, 'config' | 'env'>, providerId: string, interactive = false): Promise<LLMClient> {
  const set = Object.fromEntries(Object.entries(base.config.values.retry ?? {}).filter(([, value]) => value !== undefined));
  const retry = { ...(interactive ? INTERACTIVE_RETRY_POLICY : {}), ...set };
  return createProviderClient(providerId, base.config, base.env, Object.keys(retry).length > 0 ? retry : undefined);
}

/** The model to use: the configured one, or the provider's pick (Ollama chooses an installed tool-capable model). */
export async function resolveClientModel(client: LLMClient, signal?: AbortSignal): Promise<{ model: string; note?: string }> {
  const resolved = await client.resolveModel(signal);
  if ('failure' in resolved) throw new ProviderError(resolved.failure.message, resolved.failure.kind, exitCodeForFailure(resolved.failure));
  return resolved;
}
