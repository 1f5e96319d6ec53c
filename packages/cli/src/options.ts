import { SETTINGS_FLAG, beansToolRule, parsePermissionMode, parseToolRules } from '@beans/core';

export type OutputFormat = 'text' | 'json' | 'stream-json';

/** Options shared by every entry mode, as commander parses them. */
export interface CliOptions {
  prompt?: string;
  outputFormat: OutputFormat;
  provider?: string;
  model?: string;
  agentProfile?: string;
  agentDescription?: string;
  yolo?: boolean;
  /** Claude Code's name for --yolo. */
  dangerouslySkipPermissions?: boolean;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  fallbackModel?: string;
  /** `--settings`: a settings file, or JSON text, above the settings files. */
  settings?: string;
  /** `--add-dir`: more folders the file tools may use. */
  addDir?: string[];
  permissionMode?: string;
  /** One entry per --allowed-tools flag (repeatable). */
  allowedTools?: string[];
  /** One entry per --disallowed-tools flag (repeatable). */
  disallowedTools?: string[];
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** The SDK's `--thinking=disabled|adaptive`: disabled is off, adaptive leaves the provider's default. */
  thinking?: 'disabled' | 'adaptive' | 'enabled';
  /** `--max-thinking-tokens`: the thinking budget (0: off). */
  maxThinkingTokens?: number;
  continue?: boolean;
  /** An id (or unique prefix); `true` for `-r` alone, which in chat opens the resume picker. */
  resume?: string | true;
  pluginDir?: string[];
  /** `--mcp-config` values: files or JSON text with `{ "mcpServers": ... }`. */
  mcpConfig?: string[];
  /** `--strict-mcp-config`: only the servers of --mcp-config. */
  strictMcpConfig?: boolean;
  /** Inline subagents as JSON, Claude Code's shape: {"name": {"description", "prompt", "tools"?, "model"?}}. */
  agents?: string;
  debug?: boolean;
  /** `--tool-names claude`: json and stream-json name tools as Claude Code does (`Write` with `file_path`). */
  toolNames?: 'beans' | 'claude';
  /** `--json-schema`: a JSON Schema as JSON text or a file path. */
  jsonSchema?: string;
  /** Stream-json only: also print Anthropic-style raw stream events as text and tool input stream in. */
  includePartialMessages?: boolean;
  /** `stream-json`: the Claude Agent SDK's subprocess protocol on stdin and stdout. */
  inputFormat?: 'text' | 'stream-json';
  permissionPromptTool?: 'stdio';
  settingSources?: ('user' | 'project' | 'local')[];
  sessionId?: string;
  /** --fork-session: a resumed session continues under a new id. */
  forkSession?: boolean;
  /** --resume-session-at: the resumed conversation continues after this message (uuid). */
  resumeSessionAt?: string;
  /** --await-initialize (stream-json input): the SDK program's servers arrive in its initialize request; nothing starts before it. */
  awaitInitialize?: boolean;
  /** False with --no-session-persistence. */
  sessionPersistence?: boolean;
  /** --trust: apply this folder's own looser settings for this run. */
  trust?: boolean;
  /** --sandbox: shell commands run in an OS sandbox. */
  sandbox?: boolean;
  /** --keep-tasks (one-shot): background commands keep running after Beans exits. */
  keepTasks?: boolean;
  /** `-p ... --background`: the session runs in the session server; its id is printed. */
  background?: boolean;
  /** `-p ... --loop 30s`: the prompt runs again every interval (at least 10 s); `--max-runs N` ends after N runs. */
  loop?: string;
  maxRuns?: string;
}

/** CLI flags as dotted config keys, the top layer of the configuration. */
export function configFlags(options: CliOptions): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  if (options.provider) flags.provider = options.provider;
  if (options.model) flags.model = options.model;
  if (options.permissionMode) flags['permissions.mode'] = parsePermissionMode(options.permissionMode);
  if (options.yolo || options.dangerouslySkipPermissions) flags['permissions.mode'] = 'yolo';
  if (options.allowedTools?.length) flags['permissions.allow'] = ruleSources(options.allowedTools);
  if (options.disallowedTools?.length) flags['permissions.deny'] = ruleSources(options.disallowedTools);
  if (options.maxTurns !== undefined) flags.maxTurns = options.maxTurns;
  if (options.maxBudgetUsd !== undefined) flags.maxBudgetUsd = options.maxBudgetUsd;
  if (options.thinking === 'disabled') flags.thinking = 'off';
  if (options.maxThinkingTokens !== undefined) flags.thinking = options.maxThinkingTokens === 0 ? 'off' : String(options.maxThinkingTokens);
  if (options.pluginDir?.length) flags['plugins.dirs'] = options.pluginDir;
  if (options.debug) flags.debug = true;
  if (options.sandbox) flags['sandbox.enabled'] = true;
  if (options.settings !== undefined) flags[SETTINGS_FLAG] = options.settings;
  return flags;
}

/** Validates a rule list from a flag (a mistake is a usage error, exit 2) and keeps each rule's text. */
function ruleSources(text: string | readonly string[]): string[] {
  // Claude Code's names (`Read`, `Bash(git add:*)`) become Beans' (`read_file`, `shell(git add *)`).
  return parseToolRules(text).map((rule) => beansToolRule(rule.source));
}
