import { BUILTIN_COMMAND_NAMES, expandCommand, type CommandRunScope } from './commands.js';
import { skillInvocation } from './skills.js';
import type { CommandEntry, PluginCatalog, SkillEntry } from './types.js';

export type SlashExpansion =
  | { kind: 'command'; origin: 'command'; prompt: string; display: string; command: CommandEntry; run: CommandRunScope }
  | { kind: 'skill'; origin: 'skill'; prompt: string; display: string; skill: SkillEntry };

/**
 * What a typed `/name args` becomes when it is not a built-in command: a plugin command, else a
 * skill of that name. Undefined when neither exists (the caller says "unknown command").
 */
export async function expandSlashInput(
  text: string,
  catalog: PluginCatalog,
  builtinNames: readonly string[] = BUILTIN_COMMAND_NAMES,
): Promise<SlashExpansion | undefined> {
  const command = await expandCommand(text, catalog, builtinNames);
  if (command) return { kind: 'command', origin: 'command', ...command };
  const skill = await skillInvocation(text, catalog, builtinNames);
  if (skill) return { kind: 'skill', origin: 'skill', ...skill };
  return undefined;
}
