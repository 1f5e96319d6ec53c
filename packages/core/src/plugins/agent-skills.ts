import path from 'node:path';
import { agentSkillsDir, skillFilesAt } from './discover.js';
import { loadEntry } from './entries.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createLoadSkillTool, renderSkill } from './skills.js';
import type { PluginCatalog, PluginProblem, SkillEntry } from './types.js';

const LOAD_SKILL = 'load_skill';

/** What an agent file says about skills, before its own ones are read. */
export interface AgentSkillsSource {
  name: string;
  /** The agent's Markdown file; its skills are in `<file without .md>/skills/`. */
  path: string;
  exposedSkills?: string[];
}

/**
 * An agent's own skills (`agents/planner/skills/<skill>/SKILL.md` or `<skill>.md`), read by the
 * plugin skill loader, and its `expose:` list cut to names it really has; the rest are problems.
 * `owner` is the plugin (or `workflow`) named in a skill's heading; `root` bounds where links may lead.
 */
export function loadOwnSkills(
  agent: AgentSkillsSource,
  owner: string,
  problems: PluginProblem[],
  root: string,
): { ownSkills?: SkillEntry[]; exposedSkills?: string[] } {
  const dir = agentSkillsDir(agent.path);
  const found = skillFilesAt(dir) ?? [];
  const ownSkills = found
    .map((file) => loadEntry(file, owner, problems, root))
    .filter((entry): entry is SkillEntry => entry?.kind === 'skill')
    .map((skill) => ({ ...skill, agent: agent.name, qualifiedName: `${agent.name}:${skill.name}` }));
  const exposed: string[] = [];
  for (const name of agent.exposedSkills ?? []) {
    if (ownSkills.some((skill) => skill.name === name)) exposed.push(name);
    else
      problems.push({
        path: agent.path,
        message: `skills.expose names "${name}", which is not one of its own skills (${path.relative(path.dirname(agent.path), dir)}/); ignored`,
      });
  }
  return { ...(ownSkills.length ? { ownSkills } : {}), ...(exposed.length ? { exposedSkills: exposed } : {}) };
}

/** The exposed skills of agents as their callers see them: `<agent>:<skill>`. */
export function exposedSkillEntries(agents: ReadonlyArray<{ name: string; ownSkills?: SkillEntry[]; exposedSkills?: string[] }>): SkillEntry[] {
  return agents.flatMap((agent) =>
    (agent.exposedSkills ?? []).flatMap((name) => {
      const skill = agent.ownSkills?.find((own) => own.name === name);
      return skill ? [{ ...skill, name: `${agent.name}:${skill.name}`, qualifiedName: `${agent.name}:${skill.name}` }] : [];
    }),
  );
}

/**
 * The catalog as one agent sees it: its own skills by plain name first (they win over a plugin
 * skill of the same name), then everything else but its own exposed copies. Other agents' private
 * skills never appear here.
 */
export function withOwnSkills(catalog: PluginCatalog, own: readonly SkillEntry[]): PluginCatalog {
  if (own.length === 0) return catalog;
  const ownNamed = (name: string) => own.find((skill) => skill.name === name.trim().replace(/^\//, ''));
  const agent = own[0].agent;
  return {
    ...catalog,
    findSkill: (name) => ownNamed(name) ?? catalog.findSkill(name),
    skills: () => [...own, ...catalog.skills().filter((skill) => !ownNamed(skill.name) && (agent === undefined || skill.agent !== agent))],
  };
}

/** An agent's `tools:` list, with load_skill added when it has skills of its own (a Beans addition Claude Code lists cannot name). */
export function toolsWithOwnSkills(tools: string[] | undefined, own: readonly SkillEntry[] | undefined): string[] | undefined {
  return tools && own?.length && !tools.includes(LOAD_SKILL) ? [...tools, LOAD_SKILL] : tools;
}

/**
 * Gives an agent's tools a load_skill that finds its own skills first (when it has some and may load
 * skills at all), and returns the catalog it sees.
 */
export function equipOwnSkills(tools: ToolRegistry, catalog: PluginCatalog, own: readonly SkillEntry[] | undefined): PluginCatalog {
  const view = withOwnSkills(catalog, own ?? []);
  if (view !== catalog && tools.get(LOAD_SKILL)) tools.register(createLoadSkillTool(view));
  return view;
}

/** An agent's instructions followed by the skills it preloads. */
export async function withPreloadedSkills(
  instructions: string,
  names: readonly string[] | undefined,
  catalog: Pick<PluginCatalog, 'findSkill'>,
): Promise<string> {
  const preloaded = await preloadedSkillsText(names, catalog);
  return preloaded ? `${instructions.trim()}\n\n${preloaded}` : instructions;
}

/**
 * Claude Code's `skills: [a, b]` on a subagent: those skills' whole bodies, for the start of its
 * prompt. A name that is not installed is left out (the catalog reported it when it loaded).
 */
export async function preloadedSkillsText(names: readonly string[] | undefined, catalog: Pick<PluginCatalog, 'findSkill'>): Promise<string> {
  const skills = (names ?? []).map((name) => catalog.findSkill(name)).filter((skill): skill is SkillEntry => skill !== undefined);
  if (skills.length === 0) return '';
  const bodies = await Promise.all(skills.map((skill) => renderSkill(skill)));
  return ['# Preloaded skills', 'These skills are part of your instructions; follow them where they apply.', ...bodies].join('\n\n');
}
