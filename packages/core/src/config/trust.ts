import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, rename, writeFile } from '../async-fs.js';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { configDir, localSettingsPath, userSettingsPath, workspaceSettingsPath } from './paths.js';
import type { ConfigEntry, ConfigSource, LoadedConfig } from './config-types.js';
import { getDotted } from './dotted.js';
import { showSettingKey, showSettingValue } from './show-untrusted.js';
import { untrustedRule } from './untrusted-settings.js';

// Workspace trust. A repository's own files (`.beans/settings.json`, `.beans/settings.local.json`:
// both can be committed, so both are the repository's word) may ask for what only the person running
// Beans should grant: looser permissions, a weaker sandbox, and later hooks and MCP servers (commands
// Beans would run). In a folder the user has not trusted those requests are dropped and reported;
// requests that tighten (deny rules, plan mode, sandbox on) always apply.
//
// Which folders count: the nearest folder with a decision, walking up from the workspace, decides.
// Trusting `~/work` trusts every repository under it, and an explicit `beans untrust` of one of them
// wins over its trusted parent (Gemini CLI's "trust parent folder", and Claude Code's parent walk).

export type TrustDecision = 'trusted' | 'untrusted';

/** `<config dir>/trusted-folders.json`: `{"folders": {"/abs/path": "trusted" | "untrusted"}}`. */
export function trustedFoldersPath(env: NodeJS.ProcessEnv): string {
  return path.join(configDir(env), 'trusted-folders.json');
}

/** The recorded decisions by absolute folder path. A broken file is a ConfigError naming it. */
export function readTrustDecisions(env: NodeJS.ProcessEnv): Map<string, TrustDecision> {
  const file = trustedFoldersPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new ConfigError(`Cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Check its permissions.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`${file} is not valid JSON. Fix it, or delete it and run \`beans trust\` again in the folders you trust.`);
  }
  const folders = (parsed as { folders?: unknown } | null)?.folders;
  if (typeof folders !== 'object' || folders === null || Array.isArray(folders)) {
    throw new ConfigError(`${file} must hold {"folders": {"/path": "trusted"}}. Fix it, or delete it and run \`beans trust\` again.`);
  }
  const decisions = new Map<string, TrustDecision>();
  for (const [folder, decision] of Object.entries(folders as Record<string, unknown>)) {
    if ((decision === 'trusted' || decision === 'untrusted') && path.isAbsolute(folder)) decisions.set(path.resolve(folder), decision);
  }
  return decisions;
}

/** The recorded decision that covers `folder` (its own or its nearest ancestor's), if any. */
export function trustDecisionFor(folder: string, env: NodeJS.ProcessEnv): { decision: TrustDecision; folder: string } | undefined {
  const decisions = readTrustDecisions(env);
  if (decisions.size === 0) return undefined;
  // Both spellings: a symlinked path the user trusted, and the real path the workspace resolves to.
  for (const start of new Set([path.resolve(folder), realPath(folder)])) {
    for (let current = start; ; current = path.dirname(current)) {
      const decision = decisions.get(current);
      if (decision) return { decision, folder: current };
      if (path.dirname(current) === current) break;
    }
  }
  return undefined;
}

/** True when the user trusted this workspace (or a folder above it). For the hooks and MCP loaders. */
export function isTrusted(workspaceRoot: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return trustDecisionFor(workspaceRoot, env)?.decision === 'trusted';
}

/** Records a decision for one folder (`beans trust`, `beans untrust`, the chat's question). */
export async function setTrustDecision(folder: string, decision: TrustDecision, env: NodeJS.ProcessEnv): Promise<string> {
  const resolved = realPath(folder);
  const file = trustedFoldersPath(env);
  await mkdir(path.dirname(file), { recursive: true });
  // Under a lock every Beans process takes: two folders trusted at once both stay trusted.
  await withFileLock(file, async () => {
    const decisions = readTrustDecisions(env);
    decisions.set(resolved, decision);
    const temporary = `${file}.${process.pid}.tmp`;
    const sorted = Object.fromEntries([...decisions].sort(([a], [b]) => a.localeCompare(b)));
    await writeFile(temporary, `${JSON.stringify({ folders: sorted }, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
    await rename(temporary, file);
  });
  return resolved;
}

/**
 * Whether a plugin folder is the repository's own (inside the workspace: `plugins/`, `.beans/plugins`,
 * `.claude/`, a `plugins.dirs` entry), so its hooks and MCP servers wait for trust. Beans' built-in
 * plugins are Beans' own even when the workspace holds them (Beans working on itself).
 */
export function isRepositoryPlugin(pluginRoot: string, workspaceRoot: string, builtinPluginsDir?: string): boolean {
  const root = path.resolve(pluginRoot);
  const builtin = builtinPluginsDir && path.resolve(builtinPluginsDir);
  return isInsideFolder(path.resolve(workspaceRoot), root) && !(builtin && (root === builtin || isInsideFolder(builtin, root)));
}

function isInsideFolder(folder: string, target: string): boolean {
  const relative = path.relative(folder, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function realPath(folder: string): string {
  const resolved = path.resolve(folder);
  try {
    return existsSync(resolved) ? realpathSync(resolved) : resolved;
  } catch {
    return resolved;
  }
}

/** One request a workspace's own settings made that was not applied. */
export interface IgnoredRequest {
  /** Dotted setting key, e.g. `permissions.mode`. */
  key: string;
  value: unknown;
  /** The file that asked for it. */
  file: string;
}

export interface WorkspaceTrustOptions {
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  /** True: trusted for this run (`--trust`); false: never; undefined: the recorded decision. */
  trusted?: boolean;
  /** The same configuration without the workspace's own files, whose values replace dropped ones. */
  loadWithoutWorkspaceFiles: () => Promise<LoadedConfig>;
}

/**
 * Drops what the workspace's own settings files set that is not on the untrusted allow-list
 * (config/untrusted-settings.ts), unless the folder is trusted, and says what was dropped in one
 * warning. A dropped key takes the value it would have without those files (the user's settings,
 * the environment, or the default); a list that may only grow (deny rules) keeps the user's items.
 */
export async function applyWorkspaceTrust(loaded: LoadedConfig, options: WorkspaceTrustOptions): Promise<LoadedConfig & { ignored: IgnoredRequest[] }> {
  const workspaceFiles = new Set([workspaceSettingsPath(options.workspaceRoot), localSettingsPath(options.workspaceRoot)].map((file) => path.resolve(file)));
  // When the workspace is the home folder, its `.beans/settings.json` may be the user's own file.
  workspaceFiles.delete(path.resolve(userSettingsPath(options.env)));
  const fromWorkspace = (entry: ConfigEntry) => {
    const file = typeof entry.source === 'object' ? path.resolve(entry.source.file) : undefined;
    return file !== undefined && workspaceFiles.has(file) ? file : undefined;
  };
  if (!loaded.entries.some((entry) => fromWorkspace(entry) !== undefined)) return { ...loaded, ignored: [] };
  const trusted = options.trusted ?? isTrusted(options.workspaceRoot, options.env);
  if (trusted) return { ...loaded, ignored: [] };

  const fallback = await options.loadWithoutWorkspaceFiles();
  const userValue = (key: string) => fallback.entries.find((entry) => entry.key === key)?.value;
  const requests: IgnoredRequest[] = [];
  const combined = new Map<string, unknown>();
  for (const entry of loaded.entries) {
    const file = fromWorkspace(entry);
    if (!file) continue;
    const rule = untrustedRule(entry.key);
    if (!rule || !rule.allowed(entry.value, userValue(entry.key), options.workspaceRoot)) requests.push({ key: entry.key, value: entry.value, file });
    else if (rule.combine) combined.set(entry.key, rule.combine(entry.value, userValue(entry.key)));
  }
  if (requests.length === 0 && combined.size === 0) return { ...loaded, ignored: [] };

  const dropped = new Set(requests.map((request) => request.key));
  const entries = loaded.entries.flatMap((entry) => {
    if (combined.has(entry.key)) {
      const value = combined.get(entry.key);
      const before = fallback.entries.find((other) => other.key === entry.key);
      // Each item keeps where it came from: the workspace file, or (the user's items) the user's file or a flag.
      const itemSources = Array.isArray(value)
        ? value.map((item) => itemSource(entry, item) ?? (before && itemSource(before, item)) ?? entry.source)
        : undefined;
      return [{ ...entry, value, ...(itemSources ? { itemSources } : {}) }];
    }
    if (!dropped.has(entry.key)) return [entry];
    const replacement = fallback.entries.find((other) => other.key === entry.key);
    return replacement ? [replacement] : [];
  });
  const values = structuredClone(loaded.values) as unknown as Record<string, unknown>;
  // From the fallback's values, not its entries: they hold the defaults too (`providers: {}`).
  for (const key of dropped) setLeaf(values, key, getDotted(fallback.values, key));
  for (const [key, value] of combined) setLeaf(values, key, value);
  const warnings = requests.length ? [...loaded.warnings, describeIgnored(requests, options.workspaceRoot)] : loaded.warnings;
  return { ...loaded, values: values as unknown as LoadedConfig['values'], entries, warnings, ignored: requests };
}

function itemSource(entry: ConfigEntry, item: unknown): ConfigSource | undefined {
  if (!Array.isArray(entry.value)) return undefined;
  const index = entry.value.indexOf(item);
  return index < 0 ? undefined : (entry.itemSources?.[index] ?? entry.source);
}

/** The one line the front ends print: exactly what was ignored and how to trust. */
export function describeIgnored(requests: readonly IgnoredRequest[], workspaceRoot: string): string {
  const asked = requests
    .map((request) => `${showSettingKey(request.key)} ${showSettingValue(request.value)} (${path.relative(workspaceRoot, request.file)})`)
    .join(', ');
  return `This folder is not trusted, so its settings were ignored where they loosen Beans: ${asked}. Run \`beans trust\` to trust ${workspaceRoot}, or pass --trust for one run.`;
}

function setLeaf(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  const leaf = parts[parts.length - 1];
  if (value === undefined) delete node[leaf];
  else node[leaf] = value;
}
