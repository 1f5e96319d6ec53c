import { statSync } from 'node:fs';
import path from 'node:path';
import { createCatalog } from './catalog.js';
import { findPluginFiles, listDir, looksLikePlugin, pluginDirsOf, readManifest } from './discover.js';
import { loadOwnSkills } from './agent-skills.js';
import { loadEntry, type LoadedEntry } from './entries.js';
import { shippedPluginsDir, storedBuiltinPlugins } from './builtin-catalog.js';
import type { PluginCatalog, PluginInfo, PluginProblem } from './types.js';

export type PluginRootKind = 'builtin' | 'workspace' | 'workspace-beans' | 'workspace-claude' | 'user' | 'user-claude' | 'extra';

// `.claude` folders hold one plugin each (their commands/, agents/, skills/), named as Claude Code shows them.
const CLAUDE_DIR_PLUGIN: Partial<Record<PluginRootKind, string>> = { 'workspace-claude': 'project', 'user-claude': 'user' };

export interface PluginRoot {
  dir: string;
  kind: PluginRootKind;
}

export interface PluginRootsOptions {
  /** Beans' own `plugins/` folder. */
  builtinDir?: string;
  workspaceRoot?: string;
  /** `~/.config/beans-agent` (or `$XDG_CONFIG_HOME/beans-agent`). */
  configDir?: string;
  /** `~/.claude`, whose commands/, agents/ and skills/ are the user's own plugin. */
  claudeHome?: string;
  /** `--plugin-dir` values, in the order given. */
  extraDirs?: string[];
}

/**
 * Plugin roots in priority order, as Claude Code ranks definitions: `--plugin-dir`, then the
 * workspace (`plugins/`, `.beans/plugins`, `.claude`), then the user's, then Beans' built-in ones.
 */
export function pluginRoots(options: PluginRootsOptions): PluginRoot[] {
  const roots: PluginRoot[] = [];
  const add = (dir: string | undefined, kind: PluginRootKind): void => {
    if (dir === undefined) return;
    const resolved = path.resolve(dir);
    if (!roots.some((root) => root.dir === resolved)) roots.push({ dir: resolved, kind });
  };
  for (const dir of options.extraDirs ?? []) add(dir, 'extra');
  if (options.workspaceRoot) {
    add(path.join(options.workspaceRoot, 'plugins'), 'workspace');
    add(path.join(options.workspaceRoot, '.beans', 'plugins'), 'workspace-beans');
    add(path.join(options.workspaceRoot, '.claude'), 'workspace-claude');
  }
  if (options.configDir) add(path.join(options.configDir, 'plugins'), 'user');
  add(options.claudeHome, 'user-claude');
  add(options.builtinDir, 'builtin');
  return roots;
}

export interface LoadPluginsOptions {
  /** Roots in priority order; plain strings are optional roots that may be missing. */
  roots: Array<PluginRoot | string>;
  /** Plugin names to leave out. */
  disabled?: string[];
}

/**
 * Reads every plugin's metadata (frontmatter only; bodies load on demand). Never throws for a bad
 * file or folder: each trouble becomes a problem and the rest still loads. The file system work is
 * synchronous (see discover.ts); the promise keeps the door open for remote plugin sources.
 */
export async function loadPlugins(options: LoadPluginsOptions): Promise<PluginCatalog> {
  return loadPluginsSync(options);
}

/** `loadPlugins` for callers that cannot wait, such as a synchronous CLI listing. */
export function loadPluginsSync(options: LoadPluginsOptions): PluginCatalog {
  const problems: PluginProblem[] = [];
  const disabled = new Set(options.disabled ?? []);
  const roots = options.roots.map((root) => (typeof root === 'string' ? { dir: path.resolve(root), kind: 'workspace' as const } : root));

  const perRoot = roots.map((root) => loadRoot(root, disabled));
  const plugins: PluginInfo[] = [];
  const seen = new Map<string, PluginInfo>();
  for (const loaded of perRoot) {
    problems.push(...loaded.problems);
    for (const plugin of loaded.plugins) {
      const first = seen.get(plugin.name);
      if (first) {
        problems.push({
          path: plugin.root,
          message: `plugin "${plugin.name}" is also at ${first.root}, which comes first: its names win, and ${plugin.name}:<name> means the first one`,
        });
      } else {
        seen.set(plugin.name, plugin);
      }
      plugins.push(plugin);
    }
  }
  return createCatalog(plugins, problems);
}

export interface LoadedRoot {
  plugins: PluginInfo[];
  problems: PluginProblem[];
}

function loadRoot(root: PluginRoot, disabled: Set<string>): LoadedRoot {
  // Beans' own plugins were read at build time (builtin-catalog.ts); another built-in folder (a
  // library caller's, a test's) is read like any other.
  if (root.kind === 'builtin' && root.dir === shippedPluginsDir()) return storedBuiltinPlugins(root.dir, disabled);
  return readRoot(root, disabled);
}

/** A root's plugins read from its files (scripts/precompute.mjs stores the built-in ones from this). */
export function readRoot(root: PluginRoot, disabled: ReadonlySet<string>): LoadedRoot {
  const problems: PluginProblem[] = [];
  const info = statSync(root.dir, { throwIfNoEntry: false });
  if (!info) {
    // Most roots are optional; a --plugin-dir the user typed should exist.
    if (root.kind === 'extra') problems.push({ path: root.dir, message: 'plugin folder not found' });
    return { plugins: [], problems };
  }
  if (!info.isDirectory()) {
    problems.push({ path: root.dir, message: 'is not a folder; no plugins were loaded from it' });
    return { plugins: [], problems };
  }
  const claudeName = CLAUDE_DIR_PLUGIN[root.kind];
  const dirs = claudeName ? (looksLikePlugin(new Set(listDir(root.dir).map((entry) => entry.name))) ? [root.dir] : []) : pluginDirsOf(root.dir);
  const loaded = dirs.map((dir) => loadPlugin(dir, disabled, claudeName));
  const plugins: PluginInfo[] = [];
  for (const result of loaded) {
    problems.push(...result.problems);
    if (result.plugin) plugins.push(result.plugin);
  }
  return { plugins, problems };
}

function loadPlugin(dir: string, disabled: ReadonlySet<string>, fixedName?: string): { plugin?: PluginInfo; problems: PluginProblem[] } {
  const problems: PluginProblem[] = [];
  const manifest = readManifest(dir, problems);
  const name = fixedName ?? manifest.name ?? path.basename(dir);
  if (disabled.has(name)) return { problems };
  const files = findPluginFiles(dir, manifest, problems);
  const entries = files.map((file) => loadEntry(file, name, problems, dir));
  // An agent's own skills sit beside its file (`agents/planner/skills/`), private to it.
  const present = entries
    .filter((entry): entry is LoadedEntry => entry !== undefined)
    .map((entry) => (entry.kind === 'agent' ? { ...entry, ...loadOwnSkills(entry, name, problems, dir) } : entry));
  return {
    problems,
    plugin: {
      name,
      root: dir,
      version: manifest.version,
      description: manifest.description,
      agents: present.filter((entry) => entry.kind === 'agent'),
      skills: present.filter((entry) => entry.kind === 'skill'),
      commands: present.filter((entry) => entry.kind === 'command'),
    },
  };
}
