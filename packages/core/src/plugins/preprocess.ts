import { classifyReadOnly } from '../permissions/read-only.js';
import { allowRulesCover, findDenyingRule, parseToolRules, type ToolRule } from '../permissions/rules.js';
import { analyzeShellCommand } from '../permissions/shell-parse.js';
import { expandAttachments } from './attachments.js';
import { INLINE_SHELL, SHELL_BLOCK_OPEN } from './shell-lines.js';

// A command's shell output is context, not a log: keep the prompt a sane size.
const MAX_SHELL_OUTPUT = 30_000;

export interface ShellRunResult {
  /** stdout and stderr as the command printed them. */
  output: string;
  /** null when the command was killed. */
  exitCode: number | null;
}

export interface CommandShellOptions {
  /** Runs one command line in the workspace (the session's shell, with its environment). */
  runShell(command: string, signal: AbortSignal): Promise<ShellRunResult>;
  /** Whether the command may run without asking (the command's allowed-tools, the settings, the read-only rule), and as what. */
  isAllowed(command: string): boolean | CommandLineVerdict | Promise<boolean | CommandLineVerdict>;
  signal: AbortSignal;
  /** `/plugin:name`, for the placeholder of a denied command. */
  commandName: string;
  /** Why a denied line was denied, when there is a better reason than the usual one (an untrusted folder). */
  deniedBecause?: string;
}

/** May a `!`-line run: as `command` when given (a read-only git command gets safety options), or why not. */
export type CommandLineVerdict =
  | { run: true; command?: string }
  | { run: false; /** The deny rule that refused it. */ deniedBy?: string; /** Why the read-only rule does not cover it. */ notReadOnly?: string };

const INLINE = INLINE_SHELL;
const BLOCK_OPEN = SHELL_BLOCK_OPEN;

/**
 * Runs a command's ``!`cmd` `` spans and ```` ```! ```` blocks before the prompt reaches the model,
 * as Claude Code does, and puts their output in their place. A command its `allowed-tools` (or the
 * settings) do not allow is not run; its place says so, and why.
 */
export async function runCommandShell(body: string, options: CommandShellOptions): Promise<string> {
  const lines = body.split('\n');
  const out: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = BLOCK_OPEN.exec(lines[index]);
    if (!open) {
      out.push(await replaceInline(lines[index], options));
      continue;
    }
    const close = lines.findIndex((line, at) => at > index && line.trim() === open[1]);
    if (close === -1) {
      out.push(lines[index]);
      continue;
    }
    const script = lines.slice(index + 1, close).join('\n');
    out.push('```', await runOne(script, options), '```');
    index = close;
  }
  return out.join('\n');
}

async function replaceInline(line: string, options: CommandShellOptions): Promise<string> {
  const matches = [...line.matchAll(INLINE)];
  if (matches.length === 0) return line;
  let result = '';
  let last = 0;
  for (const match of matches) {
    const start = match.index + match[1].length;
    result += line.slice(last, start) + (await runOne(match[2], options));
    last = match.index + match[0].length;
  }
  return result + line.slice(last);
}

async function runOne(command: string, options: CommandShellOptions): Promise<string> {
  const trimmed = command.trim();
  if (options.signal.aborted) return `[not run: ${trimmed} (the run was stopped)]`;
  const answer = await options.isAllowed(trimmed);
  const verdict: CommandLineVerdict = typeof answer === 'boolean' ? { run: answer } : answer;
  if (!verdict.run) {
    return `[not run: \`${trimmed}\` — ${refusal(verdict, options)}]`;
  }
  try {
    const { output, exitCode } = await options.runShell(verdict.command ?? trimmed, options.signal);
    const text = output.length > MAX_SHELL_OUTPUT ? `${output.slice(0, MAX_SHELL_OUTPUT)}\n[... cut at ${MAX_SHELL_OUTPUT} characters]` : output;
    const body = text.replace(/\s+$/, '');
    if (exitCode === 0) return body;
    return `${body}${body ? '\n' : ''}[\`${trimmed}\` ${exitCode === null ? 'was stopped' : `exited with ${exitCode}`}]`;
  } catch (error) {
    return `[\`${trimmed}\` could not run: ${(error as Error).message}]`;
  }
}

export interface CommandRulesOptions {
  /** The read-only rule (settings `permissions.readOnlyCommands`, on by default). */
  readOnlyCommands?: boolean;
  /** Paths a read-only line names must lie inside it. */
  workspaceRoot?: string;
}

/** Which rule refused a `!`-line, or why neither the read-only rule nor the allowed-tools cover it. */
function refusal(verdict: Extract<CommandLineVerdict, { run: false }>, options: CommandShellOptions): string {
  if (verdict.deniedBy) return `the deny rule ${verdict.deniedBy} refuses it`;
  const notReadOnly = verdict.notReadOnly ? ` (not read-only: ${verdict.notReadOnly})` : '';
  if (options.deniedBecause) return `${options.deniedBecause}${notReadOnly}`;
  return `the allowed-tools of ${options.commandName} do not allow it, and this run cannot ask${notReadOnly}`;
}

/**
 * `isAllowed` from a command's `allowed-tools` (Beans rules such as `shell(git add *)`) and the
 * settings' allow rules: a line runs when no deny rule matches any part of it and either shell
 * rules cover every simple command in it, exactly as settings allow rules do, or it is read-only
 * (as Claude Code runs its read-only commands without asking).
 */
export function commandRulesAllow(
  rules: readonly string[] | undefined,
  deny: readonly ToolRule[] = [],
  options: CommandRulesOptions = {},
): (command: string) => Promise<CommandLineVerdict> {
  const parsed = rules && rules.length > 0 ? parseToolRules(rules) : [];
  return async (command) => {
    const analysis = await analyzeShellCommand(command);
    const denying = findDenyingRule(deny, 'shell', 'command', command, analysis);
    if (denying) return { run: false, deniedBy: denying.source };
    if (parsed.some((rule) => rule.tool === 'shell') && allowRulesCover(parsed, 'shell', 'command', command, analysis)) return { run: true };
    if (options.readOnlyCommands === false) return { run: false };
    const verdict = classifyReadOnly(analysis, command, { workspaceRoot: options.workspaceRoot });
    return verdict.readOnly ? { run: true, command: verdict.command } : { run: false, notReadOnly: verdict.reason };
  };
}

/**
 * Claude Code's `@path` references as text only: each text file's contents follow the prompt.
 * Pictures, PDFs and notebooks need parts: see expandAttachments.
 */
export async function expandFileReferences(text: string, workspaceRoot: string): Promise<string> {
  const expanded = await expandAttachments(text, workspaceRoot);
  return 'error' in expanded ? text : expanded.text;
}

/** `${CLAUDE_PLUGIN_ROOT}` and `${BEANS_PLUGIN_ROOT}` -> the plugin's folder (hooks, MCP configs, bodies). */
export function substitutePluginRoot(text: string, pluginRoot: string): string {
  return text.replace(/\$\{(?:CLAUDE|BEANS)_PLUGIN_ROOT\}/g, () => pluginRoot);
}
