import type { CommandEntry, PluginCatalog, PluginProblem } from './types.js';

/** The chat's own slash commands; they win over plugin commands of the same name. */
export const BUILTIN_COMMAND_NAMES: readonly string[] = [
  'help',
  'profile',
  'sop',
  'clear',
  'tasks',
  'statusline',
  'rename',
  'exit',
  'model',
  'agents',
  'agent',
  'skills',
  'tools',
  'cost',
  'resume',
  'compact',
  'hooks',
  'mcp',
  'lsp',
  'plugins',
  'memory',
  'init',
  'quit',
  'permissions',
  'status',
  'config',
  'theme',
  'rewind',
  'context',
  'export',
  'copy',
  'thinking',
  'vim',
  'todos',
  'btw',
  'background',
  // The session's own /loop and /goal (runtime/schedule-commands.ts): a plugin command of that name is hidden by them.
  'loop',
  'goal',
];

export interface SlashInput {
  /** `review` or `code-development:review`, as typed. */
  name: string;
  /** Everything after the name, trimmed. */
  args: string;
}

/** `/name args` -> its parts; undefined for text that is not a slash command (or is a path like `/usr/bin`). */
export function parseSlashInput(text: string): SlashInput | undefined {
  const match = /^\/([A-Za-z0-9][\w.-]*(?::[\w.-]+)*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1], args: (match[2] ?? '').trim() };
}

/** What a command's frontmatter changes for the run it starts, and for that run only. */
export interface CommandRunScope {
  /** `allowed-tools` as Beans rules (`Bash(git add:*)` -> `shell(git add *)`), added to the allow rules. */
  allowedTools: string[];
  /** The command's `model:` as written (`sonnet`, `inherit`, an id); map it as for agents. */
  model?: string;
  /** The model may not run this command itself; the user did. */
  disableModelInvocation: boolean;
}

export interface CommandExpansion {
  /** What the model receives, before ``!`cmd` `` preprocessing and `@path` references. */
  prompt: string;
  /** What the transcript shows: the line the user typed. */
  display: string;
  command: CommandEntry;
  run: CommandRunScope;
}

/**
 * Expands `/name args` or `/plugin:name args` into the command's prompt. Undefined when the text
 * is not a plugin command, including a plain name that belongs to a built-in command.
 */
export async function expandCommand(
  text: string,
  catalog: PluginCatalog,
  builtinNames: readonly string[] = BUILTIN_COMMAND_NAMES,
): Promise<CommandExpansion | undefined> {
  const input = parseSlashInput(text);
  if (!input) return undefined;
  if (!input.name.includes(':') && builtinNames.includes(input.name)) return undefined;
  const command = catalog.findCommand(input.name);
  if (!command) return undefined;
  const body = await command.loadBody();
  const run: CommandRunScope = {
    allowedTools: command.allowedTools ?? [],
    ...(command.model && command.model !== 'inherit' ? { model: command.model } : {}),
    disableModelInvocation: command.disableModelInvocation,
  };
  return { prompt: substituteArguments(body, input.args), display: text.trim(), command, run };
}

/**
 * Fills the placeholders as Claude Code does, everywhere in the body (code blocks too):
 * `$ARGUMENTS` is what the user typed; `$ARGUMENTS[n]` and `$n` (n = 0..9) are its shell-like
 * words, counted from 0. A positional placeholder without a word stays as written, and `\$`
 * keeps a literal `$`. A body that uses no placeholder gets the arguments appended.
 */
export function substituteArguments(body: string, args: string): string {
  const positional = splitArguments(args);
  let used = false;
  const filled = body.replace(
    /\\\$|\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS(?![\w[])|\$(\d)(?!\d)/g,
    (match: string, indexed: string | undefined, digit: string | undefined) => {
      if (match === '\\$') return '$';
      used = true;
      const index = indexed ?? digit;
      if (index === undefined) return args;
      return positional[Number(index)] ?? match;
    },
  );
  if (!used && args !== '') return `${filled}\n\nARGUMENTS: ${args}`;
  return filled;
}

/** Shell-like word splitting: whitespace separates, quotes group, a backslash escapes. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const char = args[index];
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && index + 1 < args.length) current += args[++index];
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === '\\' && index + 1 < args.length) {
      current += args[++index];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/**
 * Reports plugin commands hidden by a built-in command of the same name (still reachable as
 * `/plugin:name`). Adds them to the catalog's problems and returns them.
 */
export function reportBuiltinClashes(catalog: PluginCatalog, builtinNames: readonly string[] = BUILTIN_COMMAND_NAMES): PluginProblem[] {
  const builtins = new Set(builtinNames);
  const clashes: PluginProblem[] = [];
  for (const plugin of catalog.plugins) {
    for (const command of plugin.commands) {
      if (!builtins.has(command.name)) continue;
      const message = `command "/${command.name}" is hidden by Beans' built-in /${command.name}; run it as /${command.qualifiedName}`;
      if (catalog.problems.some((problem) => problem.path === command.path && problem.message === message)) continue;
      clashes.push({ path: command.path, message });
    }
  }
  catalog.problems.push(...clashes);
  return clashes;
}
