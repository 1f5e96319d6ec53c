import picomatch from 'picomatch';
import { UsageError } from '../errors.js';
import { splitShellCommand } from './shell-command.js';

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
  const match = /^([A-Za-z_][\w:.-]*)(?:\((.*)\))?$/s.exec(source);
  if (!match) throw new UsageError(`Invalid tool rule "${source}". Use a tool name (write_file) or a tool with a pattern (shell(git *), edit_file(src/**)).`);
  const pattern = match[2]?.trim();
  return pattern ? { tool: match[1]!, pattern, source } : { tool: match[1]!, source };
}

/** Names in rules that are not among the given tools, so a front end can warn about typos. */
export function unknownRuleTools(rules: readonly ToolRule[], toolNames: readonly string[]): string[] {
  const known = new Set(toolNames);
  return [...new Set(rules.map((rule) => rule.tool).filter((tool) => !known.has(tool)))];
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

export type SubjectKind = 'command' | 'path';

/**
 * The first deny rule covering the call. A command is denied when the whole line or any simple
 * command in it matches, so chaining cannot slip a denied command past the rule.
 */
export function findDenyingRule(rules: readonly ToolRule[], tool: string, kind: SubjectKind, subject: string | undefined): ToolRule | undefined {
  return rules.find((rule) => {
    if (rule.tool !== tool) return false;
    if (rule.pattern === undefined) return true;
    if (subject === undefined) return false;
    if (kind === 'path') return matchesPathPattern(rule.pattern, subject);
    return matchesCommandPattern(rule.pattern, subject) || splitShellCommand(subject).segments.some((segment) => matchesCommandPattern(rule.pattern!, segment));
  });
}

/**
 * True when allow rules approve the call. A command needs each of its simple commands covered by
 * some rule (possibly different ones) and nothing hidden in a substitution.
 */
export function allowRulesCover(rules: readonly ToolRule[], tool: string, kind: SubjectKind, subject: string | undefined): boolean {
  const mine = rules.filter((rule) => rule.tool === tool);
  if (mine.some((rule) => rule.pattern === undefined)) return true;
  if (subject === undefined || mine.length === 0) return false;
  if (kind === 'path') return mine.some((rule) => matchesPathPattern(rule.pattern!, subject));
  const { segments, hasSubstitution } = splitShellCommand(subject);
  if (hasSubstitution || segments.length === 0) return false;
  return segments.every((segment) => mine.some((rule) => matchesCommandPattern(rule.pattern!, segment)));
}
