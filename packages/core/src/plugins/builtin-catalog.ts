// Beans' own plugins (agents, skills, commands shipped in `<repo>/plugins`) are the same on every
// start: scripts/precompute.mjs reads them once into builtin-plugins.generated.ts, and start-up
// takes them from there instead of walking 14 files and parsing their frontmatter (~5 ms of CPU).
// A test reads the Markdown again and fails when the stored data no longer matches it. The user's,
// the repository's and --plugin-dir plugins are read from their files on every start, as before.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_PLUGINS } from './builtin-plugins.generated.js';
import { bodyLoader } from './entries.js';
import type { AgentEntry, PluginInfo, PluginProblem, SkillEntry, StoredPlugin, StoredPluginRoot, StoredSkill } from './types.js';

/** Beans' built-in plugins folder, `<repo>/plugins` (the bundle's files sit as deep as this one). */
export function shippedPluginsDir(): string {
  return fileURLToPath(new URL('../../../../plugins', import.meta.url));
}

/** The shipped plugins as loadPlugins would read them from `dir`, leaving out the `disabled` ones. */
export function storedBuiltinPlugins(dir: string, disabled: ReadonlySet<string>): { plugins: PluginInfo[]; problems: PluginProblem[] } {
  const from = (relative: string) => (relative === '' ? dir : path.join(dir, relative));
  const plugins = BUILTIN_PLUGINS.plugins.filter((plugin) => !disabled.has(plugin.name)).map((plugin) => restorePlugin(plugin, from));
  // Problems are per plugin file; a disabled plugin's files are not read, so they report nothing.
  const problems = BUILTIN_PLUGINS.problems
    .filter((problem) => !BUILTIN_PLUGINS.plugins.some((plugin) => disabled.has(plugin.name) && isUnder(problem.path, plugin.root)))
    .map((problem) => ({ ...problem, path: from(problem.path) }));
  return { plugins, problems };
}

function restorePlugin(stored: StoredPlugin, from: (relative: string) => string): PluginInfo {
  const root = from(stored.root);
  const skill = (entry: StoredSkill): SkillEntry => ({ ...entry, path: from(entry.path), dir: from(entry.dir), loadBody: bodyLoader(from(entry.path), root) });
  return {
    ...stored,
    root,
    agents: stored.agents.map(({ ownSkills, ...entry }): AgentEntry => ({
      ...entry,
      path: from(entry.path),
      loadBody: bodyLoader(from(entry.path), root),
      ...(ownSkills ? { ownSkills: ownSkills.map(skill) } : {}),
    })),
    skills: stored.skills.map(skill),
    commands: stored.commands.map((entry) => ({ ...entry, path: from(entry.path), loadBody: bodyLoader(from(entry.path), root) })),
  };
}

/** What scripts/precompute.mjs writes: `loaded` (read from `dir`'s files) with paths relative to `dir`. */
export function storeBuiltinPlugins(dir: string, loaded: { plugins: PluginInfo[]; problems: PluginProblem[] }): StoredPluginRoot {
  const to = (absolute: string) => path.relative(dir, absolute).split(path.sep).join('/');
  const skill = ({ loadBody: _body, ...entry }: SkillEntry): StoredSkill => ({ ...entry, path: to(entry.path), dir: to(entry.dir) });
  return {
    plugins: loaded.plugins.map((plugin) => ({
      ...plugin,
      root: to(plugin.root),
      agents: plugin.agents.map(({ loadBody: _body, ownSkills, ...entry }) => ({
        ...entry,
        path: to(entry.path),
        ...(ownSkills ? { ownSkills: ownSkills.map(skill) } : {}),
      })),
      skills: plugin.skills.map(skill),
      commands: plugin.commands.map(({ loadBody: _body, ...entry }) => ({ ...entry, path: to(entry.path) })),
    })),
    problems: loaded.problems.map((problem) => ({ ...problem, path: to(problem.path) })),
  };
}

function isUnder(relative: string, root: string): boolean {
  return relative === root || relative.startsWith(`${root}/`);
}
