import { readdirSync, readFileSync, statSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import type { FoundFile } from './entries.js';
import type { PluginProblem } from './types.js';

const MARKERS = ['agents', 'commands', 'skills', 'hooks'];
const MANIFEST = path.join('.claude-plugin', 'plugin.json');
// Deep enough for `commands/group/sub/x.md`, shallow enough that a stray symlink loop ends.
const MAX_DEPTH = 6;
const AGENT_SKILLS_FOLDER = 'skills';

// Discovery uses synchronous fs calls on purpose: it touches hundreds of small files and folders
// once, at start-up, and the sync calls are about twice as fast as promises with far less garbage
// (measured with bench/plugins.mjs).

export interface PluginManifest {
  name?: string;
  version?: string;
  description?: string;
  agents: string[];
  commands: string[];
  skills: string[];
}

/** A folder that is a plugin: it has `.claude-plugin/` or any of agents/, commands/, skills/. */
export function looksLikePlugin(names: Set<string>): boolean {
  return names.has('.claude-plugin') || MARKERS.some((marker) => names.has(marker));
}

export function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function statOf(target: string): Stats | undefined {
  try {
    return statSync(target);
  } catch {
    return undefined;
  }
}

function isDirectory(entry: Dirent, parent: string): boolean {
  if (entry.isDirectory()) return true;
  return entry.isSymbolicLink() && statOf(path.join(parent, entry.name))?.isDirectory() === true;
}

function isFile(entry: Dirent, parent: string): boolean {
  if (entry.isFile()) return true;
  return entry.isSymbolicLink() && statOf(path.join(parent, entry.name))?.isFile() === true;
}

/** The plugin folders of a root, by name; a root that is itself a plugin is its only plugin. */
export function pluginDirsOf(root: string): string[] {
  const entries = listDir(root);
  if (looksLikePlugin(new Set(entries.map((entry) => entry.name)))) return [root];
  const dirs: string[] = [];
  for (const entry of entries.sort(byName)) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    if (!isDirectory(entry, root)) continue;
    const dir = path.join(root, entry.name);
    const names = new Set(listDir(dir).map((inner) => inner.name));
    if (looksLikePlugin(names)) dirs.push(dir);
  }
  return dirs;
}

export function readManifest(dir: string, problems: PluginProblem[]): PluginManifest {
  const file = path.join(dir, MANIFEST);
  const empty: PluginManifest = { agents: [], commands: [], skills: [] };
  let text: string;
  try {
    // A FIFO in place of the manifest would block start-up forever.
    if (!statSync(file).isFile()) {
      problems.push({ path: file, message: 'is not a regular file (a pipe or device); it was not read' });
      return empty;
    }
    text = readFileSync(file, 'utf8');
  } catch {
    return empty;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    problems.push({ path: file, message: `is not valid JSON (${(error as Error).message}); the folder name is used` });
    return empty;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    problems.push({ path: file, message: 'is not a JSON object; the folder name is used' });
    return empty;
  }
  const record = json as Record<string, unknown>;
  const field = (key: string): string | undefined => {
    const value = record[key];
    if (typeof value === 'number') return String(value);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  return {
    name: field('name'),
    version: field('version'),
    description: field('description'),
    agents: pathList(record.agents),
    commands: pathList(record.commands),
    skills: pathList(record.skills),
  };
}

function pathList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/**
 * The Markdown files of one plugin. Manifest paths add to the default folders, as in Claude Code;
 * a path may name a folder or a single file. An agent's name is its file name; a command in a
 * nested folder is namespaced by it as in Claude Code (`commands/frontend/test.md` is `frontend:test`).
 */
export function findPluginFiles(dir: string, manifest: PluginManifest, problems: PluginProblem[]): FoundFile[] {
  const manifestFile = path.join(dir, MANIFEST);
  const withManifest = (defaultDir: string, extra: string[]): string[] => [
    ...new Set([path.join(dir, defaultDir), ...extra.map((item) => path.resolve(dir, item))]),
  ];
  const agentPaths = withManifest('agents', manifest.agents);
  const commandPaths = withManifest('commands', manifest.commands);
  const skillPaths = withManifest('skills', manifest.skills);

  // Manifest paths as the author wrote them, for problems that point back at plugin.json.
  const declared = new Map([...manifest.agents, ...manifest.commands, ...manifest.skills].map((item) => [path.resolve(dir, item), item]));
  const found: FoundFile[] = [];
  for (const [kind, paths] of [
    ['agent', agentPaths],
    ['command', commandPaths],
  ] as const) {
    for (const target of paths) {
      const files = markdownFilesAt(target, kind === 'agent');
      if (files === undefined) {
        if (declared.has(target)) problems.push({ path: manifestFile, message: `names "${declared.get(target)}", which does not exist` });
        continue;
      }
      for (const file of files) found.push({ kind, path: file, fallbackName: kind === 'command' ? commandName(target, file) : path.basename(file, '.md') });
    }
  }
  for (const target of skillPaths) {
    const skills = skillFilesAt(target);
    if (skills === undefined) {
      if (declared.has(target)) problems.push({ path: manifestFile, message: `names "${declared.get(target)}", which does not exist` });
      continue;
    }
    found.push(...skills);
  }
  // A manifest may name a file the default folder already holds: one entry per file.
  const seen = new Set<string>();
  return found.filter((file) => !seen.has(file.path) && seen.add(file.path) !== undefined);
}

function commandName(folder: string, file: string): string {
  const relative = path.relative(folder, file);
  if (relative === '' || relative.startsWith('..')) return path.basename(file, '.md');
  return relative.slice(0, -'.md'.length).split(path.sep).join(':');
}

/**
 * Markdown files at a path (a file, or a folder walked recursively); undefined when missing. In an
 * agents folder, `planner/skills/` beside `planner.md` holds that agent's own skills, not agents.
 */
function markdownFilesAt(target: string, agents = false): string[] | undefined {
  const info = statOf(target);
  if (!info) return undefined;
  if (info.isFile()) return target.endsWith('.md') ? [target] : [];
  const files: string[] = [];
  walkMarkdown(target, 0, files, agents);
  return files;
}

/** `skip`: a folder name left out here (an agent folder's `skills`). */
function walkMarkdown(dir: string, depth: number, files: string[], agents: boolean, skip?: string): void {
  if (depth > MAX_DEPTH) return;
  const entries = listDir(dir).sort(byName);
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === skip) continue;
    if (entry.name.endsWith('.md') && isFile(entry, dir)) {
      if (!/^readme\.md$/i.test(entry.name)) files.push(path.join(dir, entry.name));
    } else if (isDirectory(entry, dir)) {
      const ownsSkills = agents && entries.some((sibling) => sibling.name === `${entry.name}.md`);
      walkMarkdown(path.join(dir, entry.name), depth + 1, files, agents, ownsSkills ? AGENT_SKILLS_FOLDER : undefined);
    }
  }
}

/** Where an agent file's own skills live: `agents/planner.md` -> `agents/planner/skills/`. */
export function agentSkillsDir(agentFile: string): string {
  return path.join(path.dirname(agentFile), path.basename(agentFile).replace(/\.md$/i, ''), AGENT_SKILLS_FOLDER);
}

/**
 * Skills at a path: a folder of skills (`<name>/SKILL.md` or `<name>.md`), a single skill folder,
 * or a single skill file.
 */
export function skillFilesAt(target: string): FoundFile[] | undefined {
  const info = statOf(target);
  if (!info) return undefined;
  if (info.isFile()) {
    if (!target.endsWith('.md')) return [];
    return [skillFile(target)];
  }
  const entries = listDir(target);
  const ownSkill = entries.find((entry) => /^skill\.md$/i.test(entry.name));
  if (ownSkill) return [skillFile(path.join(target, ownSkill.name))];
  const found: FoundFile[] = [];
  for (const entry of entries.sort(byName)) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(target, entry.name);
    if (isDirectory(entry, target)) {
      const inner = listDir(full).find((file) => /^skill\.md$/i.test(file.name));
      if (inner) found.push(skillFile(path.join(full, inner.name)));
    } else if (entry.name.endsWith('.md') && !/^readme\.md$/i.test(entry.name)) {
      found.push(skillFile(full));
    }
  }
  return found;
}

function skillFile(file: string): FoundFile {
  const ownFolder = /^skill\.md$/i.test(path.basename(file));
  const fallbackName = ownFolder ? path.basename(path.dirname(file)) : path.basename(file, '.md');
  return { kind: 'skill', path: file, fallbackName, ownFolder };
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
