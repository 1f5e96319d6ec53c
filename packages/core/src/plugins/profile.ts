import { mkdir, readFile, stat, writeFile } from '../async-fs.js';
import path from 'node:path';
import { BeansError, UsageError } from '../errors.js';
import { asText, parseFrontmatter, splitFrontmatter } from './frontmatter.js';
import { BUILTIN_DEFAULT_PROFILE } from './builtin-profile.js';
import type { AgentEntry, PluginCatalog, PluginProblem, SkillEntry } from './types.js';
import { readAgentFile } from './agent-file.js';
import { stripTerminalControls } from '../terminal-text.js';

export type ProfileSource = 'flag-file' | 'flag-agent' | 'description' | 'workspace' | 'default-plugin' | 'builtin' | 'system-prompt';

/** The active agent: its system prompt, and the model and tools its frontmatter asks for. */
export interface Profile {
  name: string;
  source: ProfileSource;
  /** The Markdown file the profile came from (absent for the built-in default). */
  sourcePath?: string;
  /** The plugin, when the profile is a plugin agent. */
  plugin?: string;
  systemPrompt: string;
  /** Raw `model:` value; the provider maps it (`resolveModelAlias`). */
  model?: string;
  /** Beans tool names; undefined means every tool. */
  tools?: string[];
  description?: string;
  /** Frontmatter trouble in the profile file; the profile still loaded. */
  problems?: PluginProblem[];
  /** The frontmatter's `guardrails:` as written (checked where guardrails are compiled). */
  guardrails?: unknown;
  /** `handoffs:` and `match:` (handoffs between agents). */
  handoffs?: string[];
  match?: string[];
  /** Its own skills (`<file without .md>/skills/`): listed and loadable while it holds the conversation. */
  skills?: SkillEntry[];
  /** `skills: [a, b]`: skills whose whole bodies follow its instructions. */
  preloadSkills?: string[];
}

export interface ResolveProfileOptions {
  /** `--agent-profile`: a Markdown file, an agent name, or `plugin:agent`. */
  agentProfile?: string;
  /** `-a`: a description the model turns into a profile. */
  agentDescription?: string;
  workspaceRoot: string;
  catalog: PluginCatalog;
  /** Where a relative `--agent-profile` path starts; defaults to the process's folder. */
  cwd?: string;
  /** Asks the model to write a profile for a description (see `profileWriterRequest`). */
  generate?: (description: string) => Promise<string>;
}

export const DEFAULT_PLUGIN = 'general-assistant';
export const GENERATED_PROFILE_PATH = path.join('.beans', 'agent-profile.md');
export const WORKSPACE_PROFILE_PATH = path.join('.beans', 'agent.md');

/**
 * The profile chain: --agent-profile, then -a, then .beans/agent.md, then the general-assistant
 * plugin's agents/default.md, then the built-in default. A bad --agent-profile is a UsageError.
 */
export async function resolveProfile(options: ResolveProfileOptions): Promise<Profile> {
  if (options.agentProfile !== undefined && options.agentProfile.trim() !== '') {
    return profileFromFlag(options.agentProfile.trim(), options);
  }
  if (options.agentDescription !== undefined && options.agentDescription.trim() !== '') {
    return profileFromDescription(options.agentDescription.trim(), options);
  }
  const workspaceFile = path.join(options.workspaceRoot, WORKSPACE_PROFILE_PATH);
  if (await isFile(workspaceFile)) {
    const profile = await profileFromFile(workspaceFile, 'workspace');
    if (profile.systemPrompt !== '') return profile;
  }
  const defaultAgent = findDefaultAgent(options.catalog);
  if (defaultAgent) {
    const profile = await profileFromAgent(defaultAgent, 'default-plugin');
    if (profile.systemPrompt !== '') return profile;
  }
  return { name: 'default', source: 'builtin', systemPrompt: BUILTIN_DEFAULT_PROFILE };
}

async function profileFromFlag(value: string, options: ResolveProfileOptions): Promise<Profile> {
  const looksLikePath = /[\\/]/.test(value) || value.endsWith('.md');
  const file = path.resolve(options.cwd ?? process.cwd(), value);
  if (looksLikePath || !options.catalog.findAgent(value)) {
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile()) {
      const profile = await profileFromFile(file, 'flag-file');
      if (profile.systemPrompt === '')
        throw new UsageError(`The profile file ${value} has no instructions after its frontmatter; write the system prompt in it.`);
      return profile;
    }
    if (info?.isDirectory()) throw new UsageError(`--agent-profile ${value} is a folder; give a Markdown file or an agent name.`);
  }
  const agent = options.catalog.findAgent(value);
  if (agent) return profileFromAgent(agent, 'flag-agent');
  const available = availableAgents(options.catalog);
  const what = looksLikePath ? `No profile file ${value} was found` : `No agent named "${value}" was found`;
  throw new UsageError(`${what}. ${available} Or pass the path of a Markdown profile file.`);
}

function availableAgents(catalog: PluginCatalog): string {
  const names = catalog.agents().map((agent) => agent.qualifiedName);
  return names.length > 0 ? `Available agents: ${names.join(', ')}.` : 'No plugin agents are installed.';
}

function findDefaultAgent(catalog: PluginCatalog): AgentEntry | undefined {
  const plugin = catalog.plugins.find((candidate) => candidate.name === DEFAULT_PLUGIN);
  return plugin?.agents.find((agent) => path.basename(agent.path) === 'default.md');
}

async function profileFromAgent(agent: AgentEntry, source: ProfileSource): Promise<Profile> {
  const guardrails = parseFrontmatter(await readFile(agent.path, 'utf8')).data.guardrails;
  return {
    ...(guardrails !== undefined ? { guardrails } : {}),
    name: agent.name,
    source,
    sourcePath: agent.path,
    plugin: agent.plugin,
    systemPrompt: await agent.loadBody(),
    model: agent.model,
    tools: agent.tools,
    description: agent.description || undefined,
    ...(agent.handoffs ? { handoffs: agent.handoffs } : {}),
    ...(agent.match ? { match: agent.match } : {}),
    ...(agent.ownSkills ? { skills: agent.ownSkills } : {}),
    ...(agent.preloadSkills ? { preloadSkills: agent.preloadSkills } : {}),
  };
}

async function profileFromFile(file: string, source: ProfileSource): Promise<Profile> {
  const agent = readAgentFile(file, await readFile(file, 'utf8'), 'profile');
  const problems: PluginProblem[] = [...(agent.frontmatterProblem ? [{ path: file, message: agent.frontmatterProblem }] : []), ...agent.skillProblems];
  return {
    name: agent.name,
    source,
    sourcePath: file,
    systemPrompt: agent.body,
    model: agent.model,
    tools: agent.tools,
    description: agent.description,
    problems: problems.length > 0 ? problems : undefined,
    ...(agent.data.guardrails !== undefined ? { guardrails: agent.data.guardrails } : {}),
    ...(agent.handoffs ? { handoffs: agent.handoffs } : {}),
    ...(agent.match ? { match: agent.match } : {}),
    ...(agent.ownSkills ? { skills: agent.ownSkills } : {}),
    ...(agent.preloadSkills ? { preloadSkills: agent.preloadSkills } : {}),
  };
}

/** `-a`: reuse .beans/agent-profile.md when it was written for the same description, else write it anew. */
async function profileFromDescription(description: string, options: ResolveProfileOptions): Promise<Profile> {
  const file = path.join(options.workspaceRoot, GENERATED_PROFILE_PATH);
  if (await isFile(file)) {
    const saved = await profileFromFile(file, 'description');
    if (saved.systemPrompt !== '' && sameText(saved.description, description)) return saved;
  }
  if (!options.generate) {
    throw new UsageError('-a needs a model to write the profile, and none is available; use --agent-profile with a file instead.');
  }
  // The model's text, without escape sequences: the file is read by people (`cat`) as well as by Beans.
  const written = cleanGeneratedProfile(stripTerminalControls(await options.generate(description)));
  if (written.body === '') throw new BeansError('The model returned an empty profile for the -a description; try again or describe the agent differently.', 1);
  const name = written.name ?? slug(description);
  await mkdir(path.dirname(file), { recursive: true });
  // JSON strings are valid YAML double-quoted scalars, so any description survives the round trip.
  const frontmatter = `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\n\n`;
  await writeFile(file, `${frontmatter}${written.body}\n`, 'utf8');
  return { name, source: 'description', sourcePath: file, systemPrompt: written.body, description };
}

function sameText(a: string | undefined, b: string): boolean {
  return a !== undefined && a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();
}

/** Models wrap answers in code fences or add their own frontmatter; keep just the prompt. */
function cleanGeneratedProfile(text: string): { name?: string; body: string } {
  let content = text.trim();
  const fenced = /^(`{3,}|~{3,})[\w-]*\n([\s\S]*?)\n\1\s*$/.exec(content);
  if (fenced) content = fenced[2].trim();
  const split = splitFrontmatter(content);
  if (split.yaml === undefined || split.unclosed) return { body: content };
  const name = asText(parseFrontmatter(content).data.name);
  return { name: name ? slug(name) : undefined, body: split.body.trim() };
}

function slug(text: string): string {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const name = words.slice(0, 4).join('-').slice(0, 40).replace(/-+$/, '');
  return name || 'custom-agent';
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() === true;
}

/** One line for `/profile`: the active profile and which step of the chain chose it. */
export function describeProfile(profile: Profile): string {
  switch (profile.source) {
    case 'flag-file':
      return `${profile.name} (profile file ${profile.sourcePath}, chosen by --agent-profile)`;
    case 'flag-agent':
      return `${profile.name} (plugin agent ${profile.plugin}:${profile.name}, chosen by --agent-profile)`;
    case 'description':
      return `${profile.name} (written from the -a description, saved in ${profile.sourcePath})`;
    case 'workspace':
      return `${profile.name} (workspace profile ${profile.sourcePath})`;
    case 'default-plugin':
      return `${profile.name} (plugin agent ${profile.plugin}:${profile.name}, the default profile)`;
    case 'builtin':
      return `${profile.name} (Beans' built-in profile: no ${DEFAULT_PLUGIN} plugin was found)`;
    case 'system-prompt':
      return `${profile.name} (the systemPrompt option of the program that started Beans)`;
  }
}

export const PROFILE_WRITER_SYSTEM_PROMPT = `You write system prompts for Beans, a terminal coding assistant that works in a code repository with these tools: read_file, write_file, edit_file, shell, glob, grep, list_directory, todo_write, load_skill.
Given a short description of an agent, write its system prompt in Markdown, in the second person ("You are ..."): its role, what it focuses on, how it works with the tools, what it must not do, and how it reports. Be concrete and brief: 150 to 400 words. Answer with the prompt only: no frontmatter, no code fences, no preamble.`;

/** The request the CLI sends to the model for `-a` (it owns the client; this owns the words). */
export function profileWriterRequest(description: string): { system: string; prompt: string } {
  return { system: PROFILE_WRITER_SYSTEM_PROMPT, prompt: `Write the system prompt for this agent:\n\n${description}` };
}
