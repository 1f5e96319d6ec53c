import { readFile, stat } from '../async-fs.js';
import path from 'node:path';
import { localSettingsPath, userSettingsPath, workspaceSettingsPath } from '../config/paths.js';
import { describeIssues } from '../config/validate.js';
import { findSettingKey } from '../config/setting-keys.js';
import { fitsPlain, plainValue } from '../config/plain-schema.js';
import type { PlainSchema } from '../config/setting-key-types.js';
import { HOOK_EVENTS, hooksSchema, type HooksSettings } from './schema.js';
import { DEFAULT_HOOK_TIMEOUT_SECONDS, type HookCommand, type HookProblem, type HookSet, type HookSource } from './types.js';
import { PARSE_ONCE } from '../parse-once.js';

export interface SettingsHooks {
  file: string;
  hooks: HooksSettings;
}

export interface LoadHooksOptions {
  /** The `hooks` key of each settings file that has one. */
  settingsHooks: { user?: SettingsHooks; project?: SettingsHooks; local?: SettingsHooks };
  /** Hooks from the repository's own settings (project and local) run only in a trusted workspace. */
  trusted: boolean;
  /**
   * Loaded plugins: their `hooks/hooks.json` and `.claude-plugin/plugin.json` `hooks` are read.
   * `repository` marks a plugin the workspace itself brings (`plugins/`, `.beans/plugins`, `.claude/`):
   * its hooks are the repository's code, so they run only when `trusted`, like project settings.
   */
  plugins?: readonly { name: string; root: string; repository?: boolean }[];
}

/** Every configured hook with its source; hooks of all sources add up, as in Claude Code. */
export async function loadHooks(options: LoadHooksOptions): Promise<HookSet> {
  const hooks: HookCommand[] = [];
  const untrusted: HookCommand[] = [];
  const problems: HookProblem[] = [];
  const { user, project, local } = options.settingsHooks;
  if (user) hooks.push(...flatten(user.hooks, { kind: 'user', file: user.file }));
  for (const [kind, entry] of [
    ['project', project],
    ['local', local],
  ] as const) {
    if (!entry) continue;
    (options.trusted ? hooks : untrusted).push(...flatten(entry.hooks, { kind, file: entry.file }));
  }
  for (const plugin of options.plugins ?? []) (plugin.repository && !options.trusted ? untrusted : hooks).push(...(await pluginHooks(plugin, problems)));
  return { hooks, problems, untrusted };
}

/**
 * The `hooks` key of the user, project and local settings files, read apart because the merged
 * configuration keeps only the highest layer of a key while hooks of every layer run.
 */
export async function readSettingsHooks(options: {
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  settingSources?: readonly ('user' | 'project' | 'local')[];
}): Promise<LoadHooksOptions['settingsHooks']> {
  const sources = new Set(options.settingSources ?? ['user', 'project', 'local']);
  const files = {
    user: userSettingsPath(options.env),
    project: workspaceSettingsPath(options.workspaceRoot),
    local: localSettingsPath(options.workspaceRoot),
  };
  const out: LoadHooksOptions['settingsHooks'] = {};
  for (const kind of ['user', 'project', 'local'] as const) {
    if (!sources.has(kind)) continue;
    // The user's file doubles as the workspace's when Beans runs in the config folder: read it once.
    if (kind !== 'user' && path.resolve(files[kind]) === path.resolve(files.user)) continue;
    const raw = await readJson(files[kind]);
    if (!raw || typeof raw !== 'object' || !('hooks' in raw)) continue;
    // Settings loading has already rejected a malformed `hooks` (ConfigError); this only skips it.
    const parsed = parseHooks((raw as Record<string, unknown>).hooks);
    if (parsed.success) out[kind] = { file: files[kind], hooks: parsed.data };
  }
  return out;
}

async function readJson(file: string): Promise<unknown> {
  if (!(await exists(file))) return undefined;
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function flatten(settings: HooksSettings, source: HookSource, pluginRoot?: string): HookCommand[] {
  const out: HookCommand[] = [];
  for (const event of HOOK_EVENTS) {
    for (const group of settings[event] ?? []) {
      for (const hook of group.hooks) {
        out.push({
          event,
          ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
          command: pluginRoot ? substitutePluginRoot(hook.command, pluginRoot) : hook.command,
          timeout: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
          source,
        });
      }
    }
  }
  return out;
}

function substitutePluginRoot(command: string, root: string): string {
  return command.replace(/\$\{(?:CLAUDE|BEANS)_PLUGIN_ROOT\}/g, () => root);
}

/**
 * A plugin's hooks: `hooks/hooks.json` (`{"hooks": {...}}`, Claude Code's plugin layout) and the
 * manifest's `hooks`, which is a path (or list of paths) relative to the plugin, or the hooks inline.
 */
async function pluginHooks(plugin: { name: string; root: string }, problems: HookProblem[]): Promise<HookCommand[]> {
  const manifestFile = path.join(plugin.root, '.claude-plugin', 'plugin.json');
  const defaultFile = path.join(plugin.root, 'hooks', 'hooks.json');
  const manifest = await readJson(manifestFile);
  const declared = manifest && typeof manifest === 'object' ? (manifest as Record<string, unknown>).hooks : undefined;
  const files = new Set<string>();
  const out: HookCommand[] = [];
  const source = (file: string): HookSource => ({ kind: 'plugin', plugin: plugin.name, root: plugin.root, file });
  const take = (value: unknown, file: string) => {
    const settings = hooksOf(value, file, problems);
    if (settings) out.push(...flatten(settings, source(file), plugin.root));
  };
  if (await exists(defaultFile)) files.add(defaultFile);
  if (typeof declared === 'string' || Array.isArray(declared)) {
    for (const entry of [declared].flat()) {
      if (typeof entry !== 'string') {
        problems.push({ path: manifestFile, message: '"hooks" must be a path, a list of paths or an object of hooks.' });
        continue;
      }
      const file = path.resolve(plugin.root, entry);
      if (!isInside(plugin.root, file)) problems.push({ path: manifestFile, message: `"hooks" names ${entry}, which is outside the plugin; it is ignored.` });
      else if (!(await exists(file))) problems.push({ path: manifestFile, message: `"hooks" names ${entry}, which does not exist.` });
      else files.add(file);
    }
  } else if (declared && typeof declared === 'object') {
    take(declared, manifestFile);
  }
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      problems.push({ path: file, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).` });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      problems.push({ path: file, message: `is not valid JSON (${(error as Error).message}); its hooks are not loaded.` });
      continue;
    }
    take(value, file);
  }
  return out;
}

/** Accepts `{"hooks": {...}}` (hooks.json, with an optional description) or the events object itself. */
function hooksOf(value: unknown, file: string, problems: HookProblem[]): HooksSettings | undefined {
  const wrapped = value && typeof value === 'object' && 'hooks' in value && !HOOK_EVENTS.some((event) => event in (value as object));
  const body = wrapped ? (value as Record<string, unknown>).hooks : value;
  const parsed = parseHooks(body);
  if (!parsed.success) {
    // Paths from the settings root, so each problem says what the `hooks` key expects at that place.
    const issues = describeIssues(
      parsed.error.issues.map((issue) => ({ ...issue, path: ['hooks', ...issue.path] })),
      { hooks: body },
    );
    problems.push({ path: file, message: `${issues.slice(0, 3).join('; ')}; its hooks are not loaded.` });
    return undefined;
  }
  const unknown = Object.keys(body as object).filter((key) => !(HOOK_EVENTS as readonly string[]).includes(key));
  if (unknown.length)
    problems.push({
      path: file,
      message: `unknown hook event${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ignored (known: ${HOOK_EVENTS.join(', ')}).`,
    });
  return parsed.data;
}

/** A regular file (a FIFO in its place would block start-up forever). */
async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(path.resolve(root), file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

let hooksPlain: PlainSchema | null | undefined;

/**
 * hooksSchema().safeParse, taking a value that fits the schema's plain data without building it in
 * zod (its first use costs ~6-9 ms of start-up for two hooks). That data is the settings' `hooks`
 * section (setting-keys.generated.ts) without the `env` key the settings add (config/schema.ts);
 * a test holds the two to the same results.
 */
export function parseHooks(value: unknown): { success: true; data: HooksSettings } | ReturnType<ReturnType<typeof hooksSchema>['safeParse']> {
  if (hooksPlain === undefined) {
    const section = findSettingKey('hooks')?.plain;
    hooksPlain = section?.type === 'object' ? { ...section, keys: section.keys.filter((key) => key.name !== 'env') } : null;
  }
  if (hooksPlain && fitsPlain(hooksPlain, value)) return { success: true, data: plainValue(hooksPlain, value) as HooksSettings };
  return hooksSchema().safeParse(value, PARSE_ONCE);
}
