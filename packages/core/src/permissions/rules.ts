import picomatch from 'picomatch';
import { UsageError } from '../errors.js';
import { approvalBlocker, commandVariants, denyPatternMatches } from './command-rules.js';
import type { ShellAnalysis } from './shell-parse.js';

/** `write_file` (every call) or `shell(git *)` / `edit_file(src/**)` (calls whose subject matches). */
export interface ToolRule {
  tool: string;
  pattern?: string;
  /** The rule as written, for messages. */
  source: string;
}

/**
 * Parses a rule list such as `write_file, shell(git *), edit_file(src/**)`. Rules are separated by
 * commas or whitespace outside parentheses; a pattern may contain both.
 */
export function parseToolRules(text: string | readonly string[]): ToolRule[] {
  if (typeof text !== 'string') return text.flatMap((part) => parseToolRules(part));
  const rules: ToolRule[] = [];
  let depth = 0;
  let current = '';
  const push = () => {
    const source = current.trim();
    current = '';
    if (source) rules.push(parseOne(source));
  };
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) push();
    else current += ch;
  }
  if (depth !== 0) throw new UsageError(`Tool rule list "${text}" has an unclosed "(". Write rules like shell(git *) or edit_file(src/**).`);
  push();
  return rules;
}

function parseOne(source: string): ToolRule {
  const match = /^([A-Za-z_][\w:.-]*(?:__\*)?)(?:\((.*)\))?$/s.exec(source);
  if (!match) throw new UsageError(`Invalid tool rule "${source}". Use a tool name (write_file) or a tool with a pattern (shell(git *), edit_file(src/**)).`);
  const pattern = match[2]?.trim();
  return pattern ? { tool: match[1], pattern, source } : { tool: match[1], source };
}

/**
 * True when a rule's tool name covers `tool`: the same name, or Claude Code's MCP forms, where
 * `mcp__server` and `mcp__server__*` cover every tool of that server.
 */
export function ruleCoversTool(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  if (!ruleTool.startsWith('mcp__') || !tool.startsWith('mcp__')) return false;
  const server = ruleTool.endsWith('__*') ? ruleTool.slice(0, -3) : ruleTool;
  return server.split('__').length === 2 && tool.startsWith(`${server}__`);
}

/** Names in rules that are not among the given tools, so a front end can warn about typos. */
export function unknownRuleTools(rules: readonly ToolRule[], toolNames: readonly string[]): string[] {
  const known = new Set(toolNames);
  return [...new Set(rules.map((rule) => rule.tool).filter((tool) => !known.has(tool) && !toolNames.some((name) => ruleCoversTool(tool, name))))];
}

/**
 * Glob match of a whole command: `*` matches anything (spaces and slashes too); a trailing ` *`
 * also matches the bare command, and Claude Code's `prefix:*` form means "starts with prefix".
 */
export function matchesCommandPattern(pattern: string, command: string): boolean {
  let glob = pattern.trim().replace(/\s+/g, ' ');
  if (glob.endsWith(':*')) glob = `${glob.slice(0, -2)} *`;
  const optionalTail = glob.endsWith(' *');
  const body = optionalTail ? glob.slice(0, -2) : glob;
  const source = body.split('*').map(escapeRegex).join('.*') + (optionalTail ? '(?: .*)?' : '');
  return new RegExp(`^${source}$`, 's').test(command.trim().replace(/\s+/g, ' '));
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const pathMatchers = new Map<string, (path: string) => boolean>();

/** picomatch against a workspace-relative path; a plain folder name also covers what is inside it. */
export function matchesPathPattern(pattern: string, relPath: string): boolean {
  let matcher = pathMatchers.get(pattern);
  if (!matcher) {
    const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
    matcher = picomatch([clean, `${clean}/**`], { dot: true });
    pathMatchers.set(pattern, matcher);
  }
  return matcher(relPath);
}

export type SubjectKind = 'command' | 'path' | 'domain';

/**
 * Claude Code's `WebFetch(domain:example.com)`: the host exactly; `domain:*.example.com` also its
 * subdomains, `domain:*` every host. Host names are compared without case.
 */
export function matchesDomainPattern(pattern: string, host: string): boolean {
  const wanted = pattern
    .trim()
    .replace(/^domain:/i, '')
    .toLowerCase();
  const actual = host.toLowerCase().replace(/\.$/, '');
  if (wanted === '*') return true;
  if (wanted.startsWith('*.')) return actual.endsWith(wanted.slice(1));
  return actual === wanted;
}

/**
 * The first deny rule covering the call. A command is denied when the whole line or any simple
 * command in it matches, also once wrappers are peeled off (`env rm`, `/bin/rm`, `xargs rm`,
 * `find -delete`, `eval 'rm f'`, `git --no-pager push`), so neither chaining nor wrapping slips a
 * denied command past the rule. A line whose programs cannot all be known (`$CMD`, `echo rm f | sh`,
 * `alias`, `source`) cannot be judged, so any command rule denies it: when in doubt, the deny wins.
 */
export function findDenyingRule(
  rules: readonly ToolRule[],
  tool: string,
  kind: SubjectKind,
  subject: string | undefined,
  analysis?: ShellAnalysis,
): ToolRule | undefined {
  return rules.find((rule) => {
    if (!ruleCoversTool(rule.tool, tool)) return false;
    if (rule.pattern === undefined) return true;
    if (subject === undefined) return false;
    if (kind === 'path') return matchesPathPattern(rule.pattern, subject);
    if (kind === 'domain') return matchesDomainPattern(rule.pattern, subject);
    if (matchesCommandPattern(rule.pattern, subject)) return true;
    if (!analysis) return false;
    if (analysis.unknown.length > 0) return true;
    return analysis.commands.some((command) => command.variants.some((variant) => denyPatternMatches(rule.pattern!, command, variant, matchesCommandPattern)));
  });
}

/**
 * True when allow rules approve the call. A command needs every simple command, and what it runs
 * through wrappers, covered by some rule (possibly different ones), and nothing a pattern cannot
 * judge: file redirections, substitutions, subshells, compound commands, git reconfiguration.
 */
export function allowRulesCover(rules: readonly ToolRule[], tool: string, kind: SubjectKind, subject: string | undefined, analysis?: ShellAnalysis): boolean {
  const mine = rules.filter((rule) => ruleCoversTool(rule.tool, tool));
  if (mine.some((rule) => rule.pattern === undefined)) return true;
  if (subject === undefined || mine.length === 0) return false;
  if (kind === 'path') return mine.some((rule) => matchesPathPattern(rule.pattern!, subject));
  if (kind === 'domain') return mine.some((rule) => matchesDomainPattern(rule.pattern!, subject));
  if (!analysis || approvalBlocker(analysis) !== undefined) return false;
  return analysis.commands.every((command) =>
    commandVariants(command).every((variant) => mine.some((rule) => matchesCommandPattern(rule.pattern!, variant.join(' ')))),
  );
}
