/**
 * Claude Code plugins name tools `Read`, `Bash(git add:*)`...; Beans' tools have other names.
 * Translating them lets an agent's `tools:` list and a command's `allowed-tools` work unchanged.
 */
const CLAUDE_TO_BEANS: Record<string, string> = {
  read: 'read_file',
  write: 'write_file',
  edit: 'edit_file',
  multiedit: 'edit_file',
  notebookedit: 'notebook_edit',
  bash: 'shell',
  glob: 'glob',
  grep: 'grep',
  ls: 'list_directory',
  todowrite: 'todo_write',
  skill: 'load_skill',
  task: 'task',
  webfetch: 'web_fetch',
  lsp: 'lsp',
  schedulewakeup: 'schedule_wakeup',
  croncreate: 'cron_create',
  cronlist: 'cron_list',
  crondelete: 'cron_delete',
};

/** A tool name as Beans knows it; names Beans does not know (MCP tools) pass through. */
export function beansToolName(name: string): string {
  const bare = name.trim();
  return CLAUDE_TO_BEANS[bare.toLowerCase()] ?? bare;
}

/** `Bash(git add:*)` -> `shell(git add *)`; Beans rules use a space where Claude Code wrote `:`. */
export function beansToolRule(rule: string): string {
  const match = /^([^()]+)\((.*)\)$/.exec(rule.trim());
  if (!match) return beansToolName(rule);
  const pattern = match[2].replace(/:\*$/, ' *');
  return `${beansToolName(match[1])}(${pattern})`;
}

/** An agent's `tools:` list as Beans tool names, without duplicates or rule patterns. */
export function agentToolNames(tools: string[]): string[] {
  const names = tools.map((tool) => beansToolName(tool.replace(/\(.*\)$/, '')));
  return [...new Set(names)];
}
