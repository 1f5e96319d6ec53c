import { readFile, stat } from '../async-fs.js';
import path from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { getDotted, setDotted } from './dotted.js';
import { parseJsonObject } from './json-text.js';
import { configDir, expandHome, localSettingsPath, userSettingsPath, workspaceSettingsPath } from './paths.js';
import { BUILTIN_PROVIDERS } from '../llm/providers.js';
import { CONFIG_DEFAULTS, type BeansConfig } from './schema.js';
import { applyWorkspaceTrust, isTrusted, type IgnoredRequest } from './trust.js';
import { findSettingKey, leafSettingKeys, suggestSettingKey } from './setting-keys.js';
import { checkSettingValue, parseSettingText, validateSettings, validateSettingsLeniently } from './validate.js';

import type { ConfigEntry, ConfigSource, LoadedConfig } from './config-types.js';

export type { ConfigEntry, ConfigSource, LoadedConfig };

/** CLI flags by dotted key; `undefined` values are ignored, strings are converted like env values. */
export type ConfigFlags = Readonly<Record<string, unknown>>;

/**
 * The flags' key for Claude Code's `--settings <file-or-json>`: settings read as a file is, placed
 * above the settings files and the environment, below the other flags. No setting has this name.
 */
export const SETTINGS_FLAG = '--settings';

export interface LoadConfigOptions {
  workspaceRoot: string;
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
  /** Base for relative paths given as flags (default: the workspace root). */
  cwd?: string;
  /**
   * Which settings files to read (the Claude Agent SDK's `settingSources`): `user` (the user's
   * settings.json), `project` (`.beans/settings.json`), `local` (`.beans/settings.local.json`, personal
   * and not committed). All three by default.
   */
  settingSources?: readonly SettingSource[];
  /** Workspace trust (config/trust.ts): true trusts for this run, undefined reads the user's decision. */
  trusted?: boolean;
}

export type SettingSource = 'user' | 'project' | 'local';
export const SETTING_SOURCES: readonly SettingSource[] = ['user', 'project', 'local'];

/** Environment variables Beans reads, by the setting they set. */
export const CONFIG_ENV_VARS: Readonly<Record<string, string>> = {
  BEANS_PROVIDER: 'provider',
  BEANS_MODEL: 'model',
  // OLLAMA_HOST, GOOGLE_GEMINI_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL: from the providers' definitions.
  ...Object.fromEntries(BUILTIN_PROVIDERS.filter((p) => p.endpoint?.env).map((p) => [p.endpoint!.env!, `${p.id}.${p.endpoint!.name}`])),
  BEANS_PERMISSION_MODE: 'permissions.mode',
  BEANS_MAX_TURNS: 'maxTurns',
  BEANS_MAX_BUDGET_USD: 'maxBudgetUsd',
  // Claude Code's name for the MCP server start-up timeout.
  MCP_TIMEOUT: 'mcp.timeoutMs',
  // The workflows' PostgreSQL database (a secret: kept out of committed settings files).
  BEANS_DATABASE_URL: 'workflows.databaseUrl',
};

// Settings that hold paths: relative ones are read against the file's own base, so a workspace can
// say `"plugins": {"dirs": ["tools/plugins"]}` and it works from any subfolder.
const PATH_KEYS = new Set(['plugins.dirs', 'sessions.dir']);
// Lists that add up across layers instead of replacing each other (workspace + user + flag).
const CONCAT_KEYS = new Set(['plugins.dirs']);
// Deny rules only tighten: the rules of a flag (`--disallowed-tools`) or the environment join the
// ones the settings files settle on instead of replacing them, so no flag switches a deny rule off.
const TIGHTENING_KEYS = new Set(['permissions.deny']);
// Objects of named entries that add up across files, a name in a nearer file winning (as Claude Code's scopes).
const MERGED_RECORD_KEYS = new Set(['mcpServers', 'lsp.servers']);

interface Layer {
  source: ConfigSource;
  values: Map<string, unknown>;
}

/**
 * Merges CLI flags > environment > `.beans/settings.local.json` > `<workspace>/.beans/settings.json` > user settings > defaults.
 * An invalid file is a ConfigError (exit 3); a bad flag a UsageError (exit 2).
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig & { ignored: IgnoredRequest[] }> {
  // An untrusted repository's mistakes (a wrong value, a file that is not JSON) are ignored with its
  // other requests: a cloned repository must not be able to keep Beans from starting. Yours stop it.
  const trusted = options.trusted ?? isTrusted(options.workspaceRoot, options.env ?? process.env);
  const loaded = await mergeConfig(options, !trusted);
  const userOnly = (options.settingSources ?? SETTING_SOURCES).filter((source) => source === 'user');
  return applyWorkspaceTrust(loaded, {
    workspaceRoot: options.workspaceRoot,
    env: options.env ?? process.env,
    trusted: options.trusted,
    loadWithoutWorkspaceFiles: () => mergeConfig({ ...options, settingSources: userOnly }),
  });
}

async function mergeConfig(options: LoadConfigOptions, lenientWorkspace = false): Promise<LoadedConfig & { invalid: IgnoredRequest[] }> {
  const env = options.env ?? process.env;
  const warnings: string[] = [];
  const files: string[] = [];
  const invalid: IgnoredRequest[] = [];
  const lenient = lenientWorkspace ? invalid : undefined;

  const sources = new Set(options.settingSources ?? SETTING_SOURCES);
  const userFile = userSettingsPath(env);
  const workspaceFile = workspaceSettingsPath(options.workspaceRoot);
  const localFile = localSettingsPath(options.workspaceRoot);
  const isUserFile = (file: string) => path.resolve(file) === path.resolve(userFile);
  const user = sources.has('user') ? await fileLayer(userFile, configDir(env), env, warnings) : undefined;
  const workspace =
    sources.has('project') && !isUserFile(workspaceFile) ? await fileLayer(workspaceFile, options.workspaceRoot, env, warnings, lenient) : undefined;
  const local = sources.has('local') && !isUserFile(localFile) ? await fileLayer(localFile, options.workspaceRoot, env, warnings, lenient) : undefined;
  if (local) files.push(localFile);
  if (workspace) files.push(workspaceFile);
  if (user) files.push(userFile);

  const defaults: Layer = { source: 'default', values: new Map(Object.entries(CONFIG_DEFAULTS)) };
  const envLayer = environmentLayer(env);
  const { [SETTINGS_FLAG]: extraSettings, ...flagValues } = options.flags ?? {};
  const flags = flagLayer(flagValues, options.cwd ?? options.workspaceRoot, env);
  const extra = typeof extraSettings === 'string' ? await settingsFlagLayer(extraSettings, options.cwd ?? options.workspaceRoot, env, warnings) : undefined;
  // Highest precedence first.
  const layers = [flags, extra, envLayer, local, workspace, user, defaults].filter((layer): layer is Layer => layer !== undefined);

  const values: Record<string, unknown> = {};
  const entries: ConfigEntry[] = [];
  for (const { key } of leafSettingKeys()) {
    const entry = CONCAT_KEYS.has(key)
      ? (concatenated(key, [local, workspace, user, extra, flags]) ?? pick(key, layers))
      : TIGHTENING_KEYS.has(key)
        ? (tightened(key, [local, workspace, user], [extra, envLayer, flags]) ?? pick(key, layers))
        : MERGED_RECORD_KEYS.has(key)
          ? mergedRecord(key, [user, workspace, local, extra])
          : pick(key, layers);
    if (!entry) continue;
    entries.push(entry);
    setDotted(values, key, entry.value);
  }
  for (const parent of [
    'models',
    'providers',
    ...BUILTIN_PROVIDERS.map((p) => p.id),
    'permissions',
    'plugins',
    'sessions',
    'ui',
    'tools',
    'shell',
    'loopDetection',
    'compaction',
    'retry',
    'agents',
    'mcp',
    'lsp',
    'webFetch',
    'workflows',
    'runners',
    'input',
  ])
    values[parent] ??= {};
  const tools = values.tools as Record<string, unknown>;
  tools.env ??= {};
  return { values: values as unknown as BeansConfig, entries, warnings, files, invalid };
}

function pick(key: string, layers: Layer[]): ConfigEntry | undefined {
  for (const layer of layers) {
    if (layer.values.has(key)) return { key, value: layer.values.get(key), source: layer.source };
  }
  return undefined;
}

/**
 * The files' list (the nearest file's, as `pick`), with the environment's and the flags' items added
 * after it. The entry is the file's when a file set one (workspace trust judges it as the file's).
 */
function tightened(key: string, files: (Layer | undefined)[], added: (Layer | undefined)[]): ConfigEntry | undefined {
  const file = files.find((layer): layer is Layer => layer !== undefined && layer.values.has(key));
  const entry = concatenated(key, [file, ...added]);
  return entry && file ? { ...entry, source: file.source } : entry;
}

function concatenated(key: string, layers: (Layer | undefined)[]): ConfigEntry | undefined {
  const parts = layers.filter((layer): layer is Layer => layer !== undefined && layer.values.has(key));
  if (parts.length === 0) return undefined;
  const origins = new Map<string, ConfigSource>();
  for (const layer of parts) for (const item of layer.values.get(key) as string[]) if (!origins.has(item)) origins.set(item, layer.source);
  const value = [...origins.keys()];
  // Flags beat files, and the workspace beats the user; the list itself keeps workspace + user + flag order.
  const bySource = (s: ConfigSource) => (s === 'flag' ? 0 : 1);
  const source = [...parts].sort((a, b) => bySource(a.source) - bySource(b.source))[0].source;
  const entry: ConfigEntry = { key, value, source, itemSources: [...origins.values()] };
  if (parts.length > 1) entry.sources = parts.map((layer) => layer.source);
  return entry;
}

/** Entries of every layer, nearer ones (later in `layers`) replacing a name; the source is the nearest file. */
function mergedRecord(key: string, layers: (Layer | undefined)[]): ConfigEntry | undefined {
  const parts = layers.filter((layer): layer is Layer => layer !== undefined && layer.values.has(key));
  if (parts.length === 0) return undefined;
  const value = Object.assign({}, ...parts.map((layer) => layer.values.get(key) as Record<string, unknown>)) as Record<string, unknown>;
  const entry: ConfigEntry = { key, value, source: parts[parts.length - 1].source };
  if (parts.length > 1) entry.sources = parts.map((layer) => layer.source);
  return entry;
}

/** `--settings`: JSON text (it starts with `{`), else the path of a settings file, which must exist. */
async function settingsFlagLayer(value: string, cwd: string, env: NodeJS.ProcessEnv, warnings: string[]): Promise<Layer> {
  if (value.trim().startsWith('{')) {
    const { settings, warnings: found } = validateSettings(parseJsonObject(value, '--settings'), '--settings');
    warnings.push(...found);
    const values = new Map<string, unknown>();
    for (const { key } of leafSettingKeys()) {
      const setting = getDotted(settings, key);
      if (setting !== undefined) values.set(key, resolvePaths(key, setting, cwd, env));
    }
    return { source: { file: '--settings' }, values };
  }
  const file = path.resolve(cwd, expandHome(value, env));
  const layer = await fileLayer(file, path.dirname(file), env, warnings);
  if (!layer) throw new UsageError(`--settings: ${value} is neither JSON text nor a settings file that exists.`);
  return layer;
}

/** Largest settings file an untrusted repository's is read to (a real one is a few hundred bytes). */
const MAX_UNTRUSTED_SETTINGS_BYTES = 1024 * 1024;

/**
 * One settings file's values. With `lenient` (an untrusted repository's file) what is wrong is
 * left out and recorded there instead of stopping the run: the whole file when it cannot be read as
 * a JSON object, else each value that does not fit its key.
 */
async function fileLayer(file: string, base: string, env: NodeJS.ProcessEnv, warnings: string[], lenient?: IgnoredRequest[]): Promise<Layer | undefined> {
  let text: string;
  try {
    if (lenient) {
      // Not a pipe that never ends, nor a file of gigabytes: `stat` first, then a bounded read.
      const info = await stat(file);
      if (!info.isFile()) return leftOut(lenient, file, 'it is not a regular file');
      if (info.size > MAX_UNTRUSTED_SETTINGS_BYTES) return leftOut(lenient, file, `it is ${Math.round(info.size / 1024)} KB, more than a settings file holds`);
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (lenient) return leftOut(lenient, file, `it cannot be read (${code ?? (error as Error).message})`);
    throw new ConfigError(`Cannot read the settings file ${file} (${code ?? (error as Error).message}). Check its permissions.`);
  }
  let raw: Record<string, unknown>;
  try {
    raw = parseJsonObject(text, file);
  } catch (error) {
    if (!lenient || !(error instanceof ConfigError)) throw error;
    return leftOut(
      lenient,
      file,
      error.message
        .replace(file, '')
        .replace(/^[:\d]*:?\s*/, '')
        .replace(/\s*Fix it, or remove the file\.$/, ''),
    );
  }
  const checked = lenient ? validateSettingsLeniently(raw, file) : { ...validateSettings(raw, file), invalid: [] };
  for (const bad of checked.invalid) lenient?.push({ key: bad.key, value: bad.value, file, problem: bad.problem });
  const { settings, warnings: found } = checked;
  warnings.push(...found);
  const values = new Map<string, unknown>();
  for (const { key } of leafSettingKeys()) {
    const value = getDotted(settings, key);
    if (value !== undefined) values.set(key, resolvePaths(key, value, base, env));
  }
  return { source: { file }, values };
}

function leftOut(lenient: IgnoredRequest[], file: string, problem: string): undefined {
  lenient.push({ key: '', value: undefined, file, problem: `left out: ${problem.replace(/\.$/, '')}` });
  return undefined;
}

function environmentLayer(env: NodeJS.ProcessEnv): Layer {
  const values = new Map<string, unknown>();
  for (const [variable, key] of Object.entries(CONFIG_ENV_VARS)) {
    const text = env[variable];
    if (text === undefined || text.trim() === '') continue;
    const setting = findSettingKey(key);
    if (!setting) throw new Error(`CONFIG_ENV_VARS names unknown setting ${key}`);
    const value = parseSettingText(setting, text);
    const problem = checkSettingValue(setting, value);
    if (problem)
      throw new ConfigError(`The environment variable ${variable} must be ${problem.expected} (it sets "${key}"), not ${problem.got}. Fix or unset it.`);
    values.set(key, value);
  }
  return { source: 'env', values };
}

function flagLayer(flags: ConfigFlags, cwd: string, env: NodeJS.ProcessEnv): Layer {
  const values = new Map<string, unknown>();
  for (const [key, raw] of Object.entries(flags)) {
    if (raw === undefined) continue;
    const setting = findSettingKey(key);
    if (!setting || setting.kind === 'object') {
      const hint = suggestSettingKey(key);
      throw new UsageError(`Unknown setting "${key}" on the command line${hint ? ` (did you mean "${hint}"?)` : ''}.`);
    }
    const value = typeof raw === 'string' ? parseSettingText(setting, raw) : raw;
    const problem = checkSettingValue(setting, value);
    if (problem) throw new UsageError(`Invalid command-line value for "${problem.at}": expected ${problem.expected}, got ${problem.got}.`);
    values.set(key, resolvePaths(key, value, cwd, env));
  }
  return { source: 'flag', values };
}

function resolvePaths(key: string, value: unknown, base: string, env: NodeJS.ProcessEnv): unknown {
  if (!PATH_KEYS.has(key)) return value;
  const resolve = (p: string) => path.resolve(base, expandHome(p, env));
  if (typeof value === 'string') return resolve(value);
  if (Array.isArray(value)) return (value as unknown[]).map((p) => (typeof p === 'string' ? resolve(p) : p));
  return value;
}

/** `flag`, `env`, `default`, or the file path: how `beans config` names a source. */
export function formatConfigSource(source: ConfigSource): string {
  return typeof source === 'string' ? source : source.file;
}
