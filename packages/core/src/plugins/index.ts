export type { AgentEntry, CommandEntry, PluginCatalog, PluginEntry, PluginInfo, PluginProblem, SkillEntry } from './types.js';
export { shippedPluginsDir } from './builtin-catalog.js';
export { parseFrontmatter, splitFrontmatter, type ParsedFrontmatter } from './frontmatter.js';
export {
  loadPlugins,
  loadPluginsSync,
  pluginRoots,
  type LoadPluginsOptions,
  type PluginRoot,
  type PluginRootKind,
  type PluginRootsOptions,
} from './load-plugins.js';
export {
  BUILTIN_COMMAND_NAMES,
  expandCommand,
  parseSlashInput,
  reportBuiltinClashes,
  splitArguments,
  substituteArguments,
  type CommandExpansion,
  type CommandRunScope,
  type SlashInput,
} from './commands.js';
export { createLoadSkillTool, renderSkill, skillInvocation, skillsTriggeredBy, triggeredSkillMessage, type SkillInvocation } from './skills.js';
export { loadOwnSkills, preloadedSkillsText, withOwnSkills } from './agent-skills.js';
export { expandSlashInput, type SlashExpansion } from './slash.js';
export { shadowingNotice } from './shadowing.js';
export {
  DEFAULT_PLUGIN,
  GENERATED_PROFILE_PATH,
  PROFILE_WRITER_SYSTEM_PROMPT,
  WORKSPACE_PROFILE_PATH,
  describeProfile,
  profileWriterRequest,
  resolveProfile,
  type Profile,
  type ProfileSource,
  type ResolveProfileOptions,
} from './profile.js';
export { BUILTIN_DEFAULT_PROFILE } from './builtin-profile.js';
export { beansToolRule } from './tool-names.js';
export {
  commandRulesAllow,
  expandFileReferences,
  runCommandShell,
  substitutePluginRoot,
  type CommandShellOptions,
  type CommandLineVerdict,
  type CommandRulesOptions,
  type ShellRunResult,
} from './preprocess.js';
export { attachmentLabels, expandAttachments, type AttachOptions, type Attachments } from './attachments.js';
export { MarketplaceError, PluginStore, type InstalledPlugin, type MarketplacePlugin, type MarketplaceRecord } from './marketplace.js';
export { summaryLine } from './summary.js';
