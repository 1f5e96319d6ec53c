import path from 'node:path';

/**
 * Claude Code's tool vocabulary, spoken at the boundaries where programs written for Claude Code
 * meet Beans: hook payloads and matchers, the Claude Agent SDK's `can_use_tool` and `hook_callback`,
 * `--allowedTools`, `toolLimits`, and plugins' agent `tools:` lists and command `allowed-tools`.
 * Inside, Beans keeps its own names and parameters. This is the one table: every translation of a
 * Claude Code tool name (plugins/tool-names.ts included) asks it.
 */
interface ToolMapping {
  claude: string;
  /** Beans parameter -> Claude Code field. Parameters not listed keep their name. */
  fields: Record<string, string>;
  /** Beans parameters holding a path: Claude Code sends and expects absolute paths. */
  paths?: string[];
  /** More Claude Code fields (older names) -> Beans parameter, read but never written. */
  aliases?: Record<string, string>;
  /** Claude Code fields Beans has no parameter for: dropped from input so validation passes. */
  drop?: string[];
  /** Other Claude Code names of the same tool (older or merged ones), read but never written. */
  alsoCalled?: string[];
}

const MAPPINGS: Record<string, ToolMapping> = {
  read_file: { claude: 'Read', fields: { path: 'file_path' }, paths: ['path'] },
  write_file: { claude: 'Write', fields: { path: 'file_path' }, paths: ['path'] },
  // MultiEdit's several edits reach edit_file one call at a time.
  edit_file: { claude: 'Edit', fields: { path: 'file_path' }, paths: ['path'], alsoCalled: ['MultiEdit'] },
  notebook_edit: { claude: 'NotebookEdit', fields: { path: 'notebook_path' }, paths: ['path'] },
  shell: { claude: 'Bash', fields: { timeout_ms: 'timeout' } },
  // Claude Code 2.1's names; the older BashOutput and KillShell reach the same tools (below).
  shell_output: {
    claude: 'TaskOutput',
    fields: { wait_ms: 'timeout' },
    aliases: { bash_id: 'task_id', shell_id: 'task_id' },
    drop: ['block'],
    alsoCalled: ['BashOutput'],
  },
  kill_shell: { claude: 'TaskStop', fields: {}, aliases: { shell_id: 'task_id', bash_id: 'task_id' }, alsoCalled: ['KillShell'] },
  glob: { claude: 'Glob', fields: {}, paths: ['path'] },
  grep: { claude: 'Grep', fields: { include: 'glob', ignore_case: '-i' }, paths: ['path'] },
  list_directory: { claude: 'LS', fields: {}, paths: ['path'] },
  todo_write: { claude: 'TodoWrite', fields: {} },
  task: { claude: 'Task', fields: {} },
  web_fetch: { claude: 'WebFetch', fields: {} },
  load_skill: { claude: 'Skill', fields: { name: 'skill' } },
  // Loads deferred MCP tools (tools/tool-search.ts); same fields as Claude Code's.
  tool_search: { claude: 'ToolSearch', fields: {} },
  // Claude Code's LSP tool takes `operation`, `filePath`, `line`, `character` (1-based, as Beans').
  lsp: { claude: 'LSP', fields: { file_path: 'filePath' }, paths: ['file_path'] },
};

/** Every tool both vocabularies name: Beans' name, Claude Code's, and Claude Code's other names for it. */
export const CLAUDE_TOOL_NAMES: readonly { beans: string; claude: string; alsoCalled: readonly string[] }[] = Object.entries(MAPPINGS).map(
  ([beans, mapping]) => ({ beans, claude: mapping.claude, alsoCalled: mapping.alsoCalled ?? [] }),
);

const BY_CLAUDE = new Map(CLAUDE_TOOL_NAMES.flatMap(({ beans, claude, alsoCalled }) => [claude, ...alsoCalled].map((name) => [name.toLowerCase(), beans])));

/** `shell` -> `Bash`; names Claude Code does not know (MCP tools) pass through. */
export function claudeToolName(beansName: string): string {
  return MAPPINGS[beansName]?.claude ?? beansName;
}

/** `Bash` -> `shell`, case-insensitively; other names pass through. */
export function beansToolNameOf(claudeName: string): string {
  return BY_CLAUDE.get(claudeName.trim().toLowerCase()) ?? claudeName.trim();
}

/** A Beans call's input in Claude Code's field names, with paths made absolute against the workspace. */
export function toClaudeInput(beansName: string, input: Record<string, unknown>, workspaceRoot: string): Record<string, unknown> {
  const mapping = MAPPINGS[beansName];
  if (!mapping) return { ...input };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const isPath = mapping.paths?.includes(key) && typeof value === 'string';
    out[mapping.fields[key] ?? key] = isPath ? path.resolve(workspaceRoot, value) : value;
  }
  if (beansName === 'list_directory' && out.path === undefined) out.path = workspaceRoot;
  return out;
}

/** Input in Claude Code's field names (a hook's or an SDK program's `updatedInput`) as Beans parameters. */
export function fromClaudeInput(beansName: string, input: Record<string, unknown>): Record<string, unknown> {
  const mapping = MAPPINGS[beansName];
  if (!mapping) return { ...input };
  const reverse = new Map([...Object.entries(mapping.aliases ?? {}), ...Object.entries(mapping.fields).map(([beans, claude]) => [claude, beans] as const)]);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const beansKey = reverse.get(key) ?? key;
    // Fields Claude Code has and Beans does not (Bash's `description`) are dropped, so validation passes.
    if (beansName === 'shell' && key === 'description') continue;
    if (mapping.drop?.includes(key)) continue;
    out[beansKey] = value;
  }
  return out;
}

/** True when a Claude Code matcher (a regex over tool names, `*` or empty for all) covers a Beans tool. */
export function matcherCovers(matcher: string | undefined, beansName: string): boolean {
  const pattern = matcher?.trim() ?? '';
  if (pattern === '' || pattern === '*') return true;
  // A matcher written for an older Claude Code (BashOutput, MultiEdit) still covers the tool.
  const names = [beansName, claudeToolName(beansName), ...(MAPPINGS[beansName]?.alsoCalled ?? [])];
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${pattern})$`);
  } catch {
    return names.includes(pattern);
  }
  return names.some((name) => regex.test(name));
}
