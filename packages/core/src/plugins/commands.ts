import type { CommandEntry, PluginCatalog, PluginProblem } from './types.js';

/** The chat's own slash commands; they win over plugin commands of the same name. */
export const BUILTIN_COMMAND_NAMES: readonly string[] = [
  'help',
  'profile',
  'sop',
  'clear',
  'exit',
  'model',
  'agents',
  'skills',
  'tools',
  'cost',
  'resume',
  'compact',
  'quit',
];

export interface SlashInput {
  /** `review` or `code-development:review`, as typed. */
  name: string;
  /** Everything after the name, trimmed. */
  args: string;
}

/** `/name args` -> its parts; undefined for text that is not a slash command (or is a path like `/usr/bin`). */
export function parseSlashInput(text: string): SlashInput | undefined {
  const match = /^\/([A-Za-z0-9][\w.-]*(?::[\w.-]+)?)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1], args: (match[2] ?? '').trim() };
}

export interface CommandExpansion {
  /** What the model receives. */
  prompt: string;
  /** What the transcript shows: the line the user typed. */
  display: string;
  command: CommandEntry;
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
  return { prompt: substituteArguments(body, input.args), display: text.trim(), command };
}

/**
 * Fills `$ARGUMENTS` and `$1`..`$9` outside code. A body that uses neither gets the arguments
 * appended, so a command written without placeholders still sees what the user typed.
 */
export function substituteArguments(body: string, args: string): string {
  const positional = splitArguments(args);
  let used = false;
  const filled = mapProse(body, (prose) =>
    prose.replace(/\$ARGUMENTS\b|\$([1-9])(?!\d)/g, (match: string, digit: string | undefined) => {
      used = true;
      if (digit === undefined) return args;
      return positional[Number(digit) - 1] ?? '';
    }),
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

/** Applies `transform` to the Markdown outside fenced code blocks and inline code spans. */
function mapProse(markdown: string, transform: (prose: string) => string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | undefined;
  const flushProse = (): void => {
    if (prose.length > 0) out.push(mapOutsideInlineCode(prose.join('\n'), transform));
    prose = [];
  };
  for (const line of lines) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      out.push(line);
      // A fence closes with the same character, at least as long, and nothing after it.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    } else if (marker) {
      flushProse();
      fence = marker;
      out.push(line);
    } else {
      prose.push(line);
    }
  }
  flushProse();
  return out.join('\n');
}

function mapOutsideInlineCode(text: string, transform: (prose: string) => string): string {
  // A code span opens with a run of backticks and closes at the next run of the same length.
  let out = '';
  let proseStart = 0;
  const runs = /`+/g;
  let open: RegExpExecArray | null;
  while ((open = runs.exec(text)) !== null) {
    const ticks = open[0];
    const closing = new RegExp(`(?<!\`)${ticks}(?!\`)`, 'g');
    closing.lastIndex = open.index + ticks.length;
    const close = closing.exec(text);
    if (!close) continue;
    out += transform(text.slice(proseStart, open.index)) + text.slice(open.index, close.index + ticks.length);
    proseStart = close.index + ticks.length;
    runs.lastIndex = proseStart;
  }
  return out + transform(text.slice(proseStart));
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
