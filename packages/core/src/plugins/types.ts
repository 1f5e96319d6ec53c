/** A file that loaded with trouble (or not at all); shown by `beans plugins list`. */
export interface PluginProblem {
  path: string;
  message: string;
}

interface EntryBase {
  name: string;
  /** Name of the plugin that holds this entry. */
  plugin: string;
  description: string;
  /** Absolute path of the Markdown file. */
  path: string;
  /** `plugin:name`, which stays addressable even when a plain name is shadowed. */
  qualifiedName: string;
  /** Reads the file again and returns the Markdown after the frontmatter. */
  loadBody: () => Promise<string>;
}

export interface AgentEntry extends EntryBase {
  kind: 'agent';
  /** Raw `model:` value: `inherit`, an alias such as `sonnet`, or a concrete model id. */
  model?: string;
  /** Beans tool names the agent may use; undefined means every tool. */
  tools?: string[];
  color?: string;
  /** `handoffs:`: the only agents it may pass the conversation to. */
  handoffs?: string[];
  /** `match:`: keywords and `/regex/` strings that route a user message to it. */
  match?: string[];
  /** Its own skills (`agents/<name>/skills/`): private to it unless exposed. */
  ownSkills?: SkillEntry[];
  /** `skills: { expose: [...] }`, kept to names of its own skills: callers see them as `<agent>:<skill>`. */
  exposedSkills?: string[];
  /** `skills: [a, b]` (Claude Code's form): skills whose whole bodies start its prompt when it runs as a subagent. */
  preloadSkills?: string[];
}

export interface SkillEntry extends EntryBase {
  kind: 'skill';
  /** Phrases that activate the skill when a user's message contains them. */
  triggers: string[];
  /** The folder holding the skill file (its own folder for `skills/<name>/SKILL.md`). */
  dir: string;
  /** True for `skills/<name>/SKILL.md`, whose folder may hold references/ and scripts/. */
  ownFolder: boolean;
  /** `disable-model-invocation: true`: only the user may run it (`/name`); not listed to the model. */
  disableModelInvocation: boolean;
  /** The agent whose own skill this is (`agents/<agent>/skills/`); undefined for a plugin's skills. */
  agent?: string;
}

export interface CommandEntry extends EntryBase {
  kind: 'command';
  argumentHint?: string;
  model?: string;
  /** Permission rules in Beans' form, e.g. `shell(git add *)`. */
  allowedTools?: string[];
  /** `disable-model-invocation: true`: only the user may run it. */
  disableModelInvocation: boolean;
}

export type PluginEntry = AgentEntry | SkillEntry | CommandEntry;

export interface PluginInfo {
  name: string;
  /** The plugin's own folder. */
  root: string;
  version?: string;
  description?: string;
  agents: AgentEntry[];
  skills: SkillEntry[];
  commands: CommandEntry[];
}

export interface PluginCatalog {
  plugins: PluginInfo[];
  /** Every load problem; grows when `reportBuiltinClashes` runs. */
  problems: PluginProblem[];
  /** `name` or `plugin:name`. A plain name finds the first plugin (root order) that has it. */
  findAgent(name: string): AgentEntry | undefined;
  findSkill(name: string): SkillEntry | undefined;
  findCommand(name: string): CommandEntry | undefined;
  /** The entries reachable by their plain name, in root order (shadowed duplicates left out). */
  agents(): AgentEntry[];
  skills(): SkillEntry[];
  commands(): CommandEntry[];
}

/**
 * A plugin root as scripts/precompute.mjs stores it (builtin-plugins.generated.ts): the entries
 * without their body loaders, every path relative to the root.
 */
export interface StoredPluginRoot {
  plugins: StoredPlugin[];
  problems: PluginProblem[];
}

export type StoredSkill = Omit<SkillEntry, 'loadBody'>;
type StoredAgent = Omit<AgentEntry, 'loadBody' | 'ownSkills'> & { ownSkills?: StoredSkill[] };
type StoredCommand = Omit<CommandEntry, 'loadBody'>;

export interface StoredPlugin extends Omit<PluginInfo, 'agents' | 'skills' | 'commands'> {
  agents: StoredAgent[];
  skills: StoredSkill[];
  commands: StoredCommand[];
}
