import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../workspace/paths.js';
import { asArgumentHint, asList, asText, firstBodyLine, parseFrontmatter, splitFrontmatter } from './frontmatter.js';
import { readHead, readText } from './read-head.js';
import { substitutePluginRoot } from './preprocess.js';
import { agentToolNames, beansToolRule } from './tool-names.js';
import type { AgentEntry, CommandEntry, PluginProblem, SkillEntry } from './types.js';

/** A Markdown file found in a plugin, before its head is read. */
export interface FoundFile {
  kind: 'agent' | 'command' | 'skill';
  path: string;
  /** The name to use when the frontmatter has none (file name, or the skill's folder name). */
  fallbackName: string;
  /** Skills only: the skill has its own folder (`skills/<name>/SKILL.md`). */
  ownFolder?: boolean;
}

export type LoadedEntry = AgentEntry | CommandEntry | SkillEntry;

/**
 * Reads a file's head and builds its entry; problems are pushed, never thrown. A file that is a
 * link leading out of its plugin (a SKILL.md pointing at /etc/passwd), or that is not a regular
 * file (a FIFO would block start-up forever), is skipped and reported.
 */
export function loadEntry(file: FoundFile, plugin: string, problems: PluginProblem[], pluginRoot?: string): LoadedEntry | undefined {
  const refusal = pluginRoot ? refuseFile(file.path, pluginRoot) : undefined;
  if (refusal) {
    problems.push({ path: file.path, message: `${refusal}; skipped` });
    return undefined;
  }
  let head: string;
  try {
    head = readHead(file.path);
  } catch (error) {
    problems.push({ path: file.path, message: `could not be read: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = parseFrontmatter(head);
  if (parsed.problem) problems.push({ path: file.path, message: parsed.problem });
  const data = parsed.data;
  const name = asText(data.name, '-') ?? file.fallbackName;
  const description = asText(data.description) ?? firstBodyLine(parsed.body) ?? '';
  const base = {
    name,
    plugin,
    description,
    path: file.path,
    qualifiedName: `${plugin}:${name}`,
    loadBody: bodyLoader(file.path, pluginRoot),
  };
  if (file.kind === 'agent') {
    const tools = asList(data.tools);
    return {
      ...base,
      kind: 'agent',
      model: asText(data.model),
      // An empty list is how many public agents say "no restriction"; an agent with no tools at
      // all could not even read a file, so it means every tool here.
      tools: tools && tools.length > 0 ? agentToolNames(tools) : undefined,
      color: asText(data.color),
      ...handoffFields(data),
      ...agentSkillFields(data, file.path, problems),
    };
  }
  if (file.kind === 'command') {
    const allowed = asList(data['allowed-tools']);
    return {
      ...base,
      kind: 'command',
      argumentHint: asArgumentHint(data['argument-hint']),
      model: asText(data.model),
      allowedTools: allowed && allowed.length > 0 ? allowed.map(beansToolRule) : undefined,
      disableModelInvocation: asFlag(data['disable-model-invocation']),
    };
  }
  return {
    ...base,
    kind: 'skill',
    triggers: asList(data.triggers) ?? [],
    dir: path.dirname(file.path),
    ownFolder: file.ownFolder === true,
    disableModelInvocation: asFlag(data['disable-model-invocation']),
  };
}

/** An entry's `loadBody`: reads the file again and gives the Markdown after its frontmatter. */
export function bodyLoader(filePath: string, pluginRoot: string | undefined): () => Promise<string> {
  return async () => {
    const body = splitFrontmatter(await readText(filePath)).body.trim();
    return pluginRoot ? substitutePluginRoot(body, pluginRoot) : body;
  };
}

function asFlag(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');
}

/** Why a plugin file must not be read, or undefined when it may. */
function refuseFile(file: string, pluginRoot: string): string | undefined {
  let real: string;
  try {
    // The native call is one system call; the JavaScript one lstats every folder on the way.
    real = realpathSync.native(file);
  } catch (error) {
    return `could not be read: ${(error as Error).message}`;
  }
  if (!isInside(realRoot(pluginRoot), real)) return `is a link to ${real}, outside its plugin ${pluginRoot}`;
  if (!statSync(real).isFile()) return 'is not a regular file (a pipe, socket or device)';
  return undefined;
}

const realRoots = new Map<string, string>();
function realRoot(pluginRoot: string): string {
  let real = realRoots.get(pluginRoot);
  if (real === undefined) realRoots.set(pluginRoot, (real = realpathSync.native(pluginRoot)));
  return real;
}

/** `handoffs:` and `match:` of an agent; a `match:` list keeps each item whole (a regex may hold commas). */
export function handoffFields(data: Record<string, unknown>): { handoffs?: string[]; match?: string[] } {
  const handoffs = asList(data.handoffs);
  const match = Array.isArray(data.match) ? data.match.map((item) => asText(item)).filter((item): item is string => !!item?.trim()) : asList(data.match);
  return { ...(handoffs ? { handoffs } : {}), ...(match?.length ? { match } : {}) };
}

/**
 * An agent's `skills:`. Claude Code's list (or comma string) names skills to preload into it; the
 * mapping `{ expose: [...], preload: [...] }` also exposes some of its own skills to its callers.
 */
export function agentSkillFields(
  data: Record<string, unknown>,
  file: string,
  problems: PluginProblem[],
): { exposedSkills?: string[]; preloadSkills?: string[] } {
  const value = data.skills;
  if (value === undefined || value === null) return {};
  const isMapping = typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
  if (!isMapping) {
    const preload = asList(value);
    return preload?.length ? { preloadSkills: preload } : {};
  }
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'expose' && key !== 'preload');
  if (unknown.length > 0)
    problems.push({ path: file, message: `skills: has ${unknown.map((key) => `"${key}"`).join(', ')}, which Beans does not know (expose, preload); ignored` });
  const expose = asList(record.expose);
  const preload = asList(record.preload);
  return { ...(expose?.length ? { exposedSkills: expose } : {}), ...(preload?.length ? { preloadSkills: preload } : {}) };
}
