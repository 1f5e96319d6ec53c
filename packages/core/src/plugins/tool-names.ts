import { beansToolNameOf } from '../claude/vocabulary.js';

// Claude Code plugins name tools `Read`, `Bash(git add:*)`...; Beans' tools have other names.
// Translating them (by the one vocabulary, claude/vocabulary.ts) lets an agent's `tools:` list and
// a command's `allowed-tools` work unchanged.

/** `Bash(git add:*)` -> `shell(git add *)`; Beans rules use a space where Claude Code wrote `:`. */
export function beansToolRule(rule: string): string {
  const match = /^([^()]+)\((.*)\)$/.exec(rule.trim());
  if (!match) return beansToolNameOf(rule);
  const pattern = match[2].replace(/:\*$/, ' *');
  return `${beansToolNameOf(match[1])}(${pattern})`;
}

/** An agent's `tools:` list as Beans tool names, without duplicates or rule patterns. */
export function agentToolNames(tools: string[]): string[] {
  const names = tools.map((tool) => beansToolNameOf(tool.replace(/\(.*\)$/, '')));
  return [...new Set(names)];
}
