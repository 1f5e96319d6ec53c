import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, rename, writeFile } from '../async-fs.js';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { configDir, localSettingsPath, userSettingsPath, workspaceSettingsPath } from './paths.js';
import type { ConfigEntry, ConfigSource, LoadedConfig } from './config-types.js';
import { getDotted, isPlainObject } from './dotted.js';
import { showSettingKey, showSettingValue, showUntrusted } from './show-untrusted.js';
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
  /** Dotted setting key, e.g. `permissions.mode`; '' when the whole file was left out (not JSON, not an object). */
  key: string;
  value: unknown;
  /** The file that asked for it. */
  file: string;
  /** Why, when the value was not even valid (an untrusted repository's mistake never stops a run). */
  problem?: string;
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
export async function applyWorkspaceTrust(
  loaded: LoadedConfig & { invalid?: IgnoredRequest[] },
  options: WorkspaceTrustOptions,
): Promise<LoadedConfig & { ignored: IgnoredRequest[] }> {
  const { invalid = [], ...config } = loaded;
  const workspaceFiles = new Set([workspaceSettingsPath(options.workspaceRoot), localSettingsPath(options.workspaceRoot)].map((file) => path.resolve(file)));
  // When the workspace is the home folder, its `.beans/settings.json` may be the user's own file.
  workspaceFiles.delete(path.resolve(userSettingsPath(options.env)));
  const workspaceFile = (source: ConfigSource | undefined) => {
    const file = typeof source === 'object' ? path.resolve(source.file) : undefined;
    return file !== undefined && workspaceFiles.has(file) ? file : undefined;
  };
  // A list the layers add up (`plugins.dirs`) comes from the workspace when any of its items does,
  // even when a flag gave it its place (`--plugin-dir`).
  const fromWorkspace = (entry: ConfigEntry) => workspaceFile(entry.source) ?? entry.itemSources?.map(workspaceFile).find((file) => file !== undefined);
  if (invalid.length === 0 && !config.entries.some((entry) => fromWorkspace(entry) !== undefined)) return { ...config, ignored: [] };
  const trusted = options.trusted ?? isTrusted(options.workspaceRoot, options.env);
  if (trusted) return { ...config, ignored: [] };

  const fallback = await options.loadWithoutWorkspaceFiles();
  const userValue = (key: string) => fallback.entries.find((entry) => entry.key === key)?.value;
  const requests: IgnoredRequest[] = [...invalid];
  const combined = new Map<string, unknown>();
  const dropped = new Set<string>();
  for (const entry of config.entries) {
    const file = fromWorkspace(entry);
    if (!file) continue;
    const rule = untrustedRule(entry.key);
    if (rule && rule.allowed(entry.value, userValue(entry.key), options.workspaceRoot)) {
      if (rule.combine) combined.set(entry.key, rule.combine(entry.value, userValue(entry.key)));
      continue;
    }
    dropped.add(entry.key);
    // Named as the repository wrote it: a merged value also holds the user's own servers and folders.
    const own = repositoryPart(entry, userValue(entry.key), (source) => workspaceFile(source) !== undefined);
    if (own !== undefined) requests.push({ key: entry.key, value: own, file });
  }
  if (requests.length === 0 && combined.size === 0 && dropped.size === 0) return { ...config, ignored: [] };

  const entries = config.entries.flatMap((entry) => {
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
  const values = structuredClone(config.values) as unknown as Record<string, unknown>;
  // From the fallback's values, not its entries: they hold the defaults too (`providers: {}`).
  for (const key of dropped) setLeaf(values, key, getDotted(fallback.values, key));
  for (const [key, value] of combined) setLeaf(values, key, value);
  const warnings = requests.length ? [...config.warnings, describeIgnored(requests, options.workspaceRoot)] : config.warnings;
  return { ...config, values: values as unknown as LoadedConfig['values'], entries, warnings, ignored: requests };
}

/**
 * What the repository itself asked for under one key: a list's items from its files, a record's
 * entries the user's own settings do not hold as they are; undefined when that is nothing.
 */
function repositoryPart(entry: ConfigEntry, userValue: unknown, isWorkspace: (source: ConfigSource) => boolean): unknown {
  if (entry.itemSources && Array.isArray(entry.value)) {
    const own = entry.value.filter((_, index) => isWorkspace(entry.itemSources![index]));
    return own.length > 0 ? own : undefined;
  }
  if (entry.sources && isPlainObject(entry.value) && isPlainObject(userValue)) {
    const own = Object.entries(entry.value).filter(
      ([name, value]) => !Object.hasOwn(userValue, name) || JSON.stringify(userValue[name]) !== JSON.stringify(value),
    );
    return own.length > 0 ? Object.fromEntries(own) : undefined;
  }
  return entry.value;
}

function itemSource(entry: ConfigEntry, item: unknown): ConfigSource | undefined {
  if (!Array.isArray(entry.value)) return undefined;
  const index = entry.value.indexOf(item);
  return index < 0 ? undefined : (entry.itemSources?.[index] ?? entry.source);
}

/** The one line the front ends print: exactly what was ignored and how to trust. */
export function describeIgnored(requests: readonly IgnoredRequest[], workspaceRoot: string): string {
  const asked = requests
    .map((request) => {
      const file = path.relative(workspaceRoot, request.file);
      if (request.key === '') return `${file} (${showUntrusted(request.problem ?? 'not read', 200)})`;
      return `${showSettingKey(request.key)} ${showSettingValue(request.value)} (${file}${request.problem ? `: ${showUntrusted(request.problem, 200)}` : ''})`;
    })
    .join(', ');
  const why = requests.some((request) => request.problem) ? 'where they loosen Beans or are not valid' : 'where they loosen Beans';
  return `This folder is not trusted, so its settings were ignored ${why}: ${asked}. Run \`beans trust\` to trust ${workspaceRoot}, or pass --trust for one run.`;
}

function setLeaf(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  const leaf = parts[parts.length - 1];
  if (value === undefined) delete node[leaf];
  else node[leaf] = value;
}
