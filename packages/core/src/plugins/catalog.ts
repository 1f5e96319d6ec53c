import { exposedSkillEntries } from './agent-skills.js';
import type { AgentEntry, PluginCatalog, PluginEntry, PluginInfo, PluginProblem, SkillEntry } from './types.js';

const KIND_WORD = { agent: 'agent', skill: 'skill', command: 'command' } as const;

/** Lookups over loaded plugins. Plugins come in root order, so the first definition of a name wins. */
export function createCatalog(plugins: PluginInfo[], problems: PluginProblem[]): PluginCatalog {
  const agents = indexEntries(
    plugins.flatMap((plugin) => plugin.agents),
    problems,
  );
  const skills = indexEntries(
    plugins.flatMap((plugin) => plugin.skills),
    problems,
  );
  addExposedSkills(skills, [...agents.plain.values()], problems);
  checkPreloads([...agents.qualified.values()], (name) => find(skills, name), problems);
  const commands = indexEntries(
    plugins.flatMap((plugin) => plugin.commands),
    problems,
  );
  return {
    plugins,
    problems,
    findAgent: (name) => find(agents, name),
    findSkill: (name) => find(skills, name),
    findCommand: (name) => find(commands, name),
    agents: () => [...agents.plain.values()],
    skills: () => [...skills.plain.values()],
    commands: () => [...commands.plain.values()],
  };
}

interface EntryIndex<T extends PluginEntry> {
  plain: Map<string, T>;
  qualified: Map<string, T>;
  /** `pdf-form-filler` for a skill named `PDF Form Filler`, which cannot be typed after a slash. */
  aliases: Map<string, T>;
}

/** The typeable form of a name with spaces. */
function slashName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

function indexEntries<T extends PluginEntry>(entries: T[], problems: PluginProblem[]): EntryIndex<T> {
  const plain = new Map<string, T>();
  const qualified = new Map<string, T>();
  const aliases = new Map<string, T>();
  for (const entry of entries) {
    if (/\s/.test(entry.name)) {
      const alias = slashName(entry.name);
      if (!aliases.has(alias)) aliases.set(alias, entry);
      if (!aliases.has(`${entry.plugin}:${alias}`)) aliases.set(`${entry.plugin}:${alias}`, entry);
    }
    const first = plain.get(entry.name);
    if (first) {
      problems.push({
        path: entry.path,
        message: `${KIND_WORD[entry.kind]} "${entry.name}" is also defined by ${first.path} (plugin ${first.plugin}), which comes first and is used; reach this one as ${entry.qualifiedName}`,
      });
    } else {
      plain.set(entry.name, entry);
    }
    // A second plugin of the same name (e.g. a copy of a built-in one) is already reported once per plugin.
    if (!qualified.has(entry.qualifiedName)) qualified.set(entry.qualifiedName, entry);
  }
  return { plain, qualified, aliases };
}

/** `<agent>:<skill>` for each skill an agent exposes; a plugin's own `plugin:skill` of that name wins. */
function addExposedSkills(index: EntryIndex<SkillEntry>, agents: AgentEntry[], problems: PluginProblem[]): void {
  for (const skill of exposedSkillEntries(agents)) {
    const taken = index.qualified.get(skill.name) ?? index.plain.get(skill.name);
    if (taken) problems.push({ path: skill.path, message: `exposed skill "${skill.name}" is also the name of ${taken.path}, which is used` });
    else index.plain.set(skill.name, skill);
  }
}

/** A preloaded skill must be installed or be one of the agent's own. */
function checkPreloads(agents: AgentEntry[], findSkill: (name: string) => SkillEntry | undefined, problems: PluginProblem[]): void {
  for (const agent of agents) {
    for (const name of agent.preloadSkills ?? []) {
      if (findSkill(name) || agent.ownSkills?.some((skill) => skill.name === name)) continue;
      problems.push({ path: agent.path, message: `skills: preloads "${name}", which is not an installed skill nor one of its own; left out` });
    }
  }
}

function find<T extends PluginEntry>(index: EntryIndex<T>, name: string): T | undefined {
  const wanted = name.trim().replace(/^\//, '');
  return index.qualified.get(wanted) ?? index.plain.get(wanted) ?? index.aliases.get(wanted);
}
