import path from 'node:path';
import { configDir, loadConfig, localSettingsPath, workspaceSettingsPath, type ConfigFlags, type SettingSource } from '../config/index.js';
import { isTrusted, trustDecisionFor, type IgnoredRequest } from '../config/trust.js';
import { resolveWorkspace } from '../workspace/workspace.js';
import { builtinPluginsDir, loadCatalog } from './base.js';
import { newSinceTrust, repositoryDeclarations, type Declaration } from './repository-declarations.js';

/** What the chat asks on first start in an untrusted folder that asks for more or ships commands. */
export interface TrustQuestion {
  workspaceRoot: string;
  /** Exactly what the folder's own files ask for that is ignored until it is trusted. */
  requests: IgnoredRequest[];
  /** The ids of the servers and hooks listed: trusting records them as what the trust covers. */
  declarationIds: string[];
}

export interface TrustQuestionOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
  settingSources?: readonly SettingSource[];
  /** `--trust`: nothing to ask. */
  trusted?: boolean;
  /** Beans' built-in plugins (default: the packaged folder). */
  builtinPluginsDir?: string;
}

/**
 * The question to ask, or undefined when there is none: the folder asks for nothing and ships no
 * server or hook, it is trusted (`--trust` included), or the user already decided for it or a folder
 * above it (asked once).
 */
export async function workspaceTrustQuestion(options: TrustQuestionOptions = {}): Promise<TrustQuestion | undefined> {
  if (options.trusted) return undefined;
  const env = options.env ?? process.env;
  const workspace = resolveWorkspace(options.cwd ?? process.cwd());
  if (trustDecisionFor(workspace.root, env)) return undefined;
  const config = await loadConfig({ workspaceRoot: workspace.root, env, flags: options.flags, settingSources: options.settingSources, cwd: workspace.cwd });
  const catalog = await loadCatalog({ env, workspace, config, configDir: configDir(env) }, options.builtinPluginsDir);
  const declarations = await repositoryDeclarations({
    workspaceRoot: workspace.root,
    env,
    plugins: catalog.plugins,
    builtinPluginsDir: options.builtinPluginsDir ?? builtinPluginsDir(),
    settingSources: options.settingSources,
  });
  // Servers and hooks of the settings files are already among the settings requests.
  const settingsFiles = new Set([workspaceSettingsPath(workspace.root), localSettingsPath(workspace.root)].map((file) => path.resolve(file)));
  const shipped = declarations
    .filter((d) => !settingsFiles.has(path.resolve(d.file)))
    .map((d): IgnoredRequest => ({ key: `${d.kind} ${d.name}`, value: d.command, file: d.file }));
  const requests = [...config.ignored, ...shipped];
  if (requests.length === 0) return undefined;
  return { workspaceRoot: workspace.root, requests, declarationIds: declarations.map((d) => d.id) };
}

/** Servers and hooks a trusted folder declared after it was trusted, for the chat to ask about one by one. */
export interface ApprovalQuestion {
  workspaceRoot: string;
  declarations: Declaration[];
}

/** Undefined unless the folder is trusted by the user's record (not only `--trust`) and declares something new. */
export async function newDeclarationsQuestion(options: TrustQuestionOptions = {}): Promise<ApprovalQuestion | undefined> {
  if (options.trusted) return undefined;
  const env = options.env ?? process.env;
  const workspace = resolveWorkspace(options.cwd ?? process.cwd());
  if (!isTrusted(workspace.root, env)) return undefined;
  const config = await loadConfig({ workspaceRoot: workspace.root, env, flags: options.flags, settingSources: options.settingSources, cwd: workspace.cwd });
  const catalog = await loadCatalog({ env, workspace, config, configDir: configDir(env) }, options.builtinPluginsDir);
  const declarations = await newSinceTrust({
    workspaceRoot: workspace.root,
    env,
    plugins: catalog.plugins,
    builtinPluginsDir: options.builtinPluginsDir ?? builtinPluginsDir(),
    settingSources: options.settingSources,
  });
  return declarations.length ? { workspaceRoot: workspace.root, declarations } : undefined;
}
