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
  permissionMode?: string;
  allowedTools?: string;
  disallowedTools?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  continue?: boolean;
  resume?: string;
  pluginDir: string[];
  debug?: boolean;
}

/** CLI flags as dotted config keys, the top layer of the configuration. */
export function configFlags(options: CliOptions): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  if (options.provider) flags.provider = options.provider;
  if (options.model) flags.model = options.model;
  if (options.permissionMode) flags['permissions.mode'] = options.permissionMode;
  if (options.yolo) flags['permissions.mode'] = 'yolo';
  if (options.allowedTools) flags['permissions.allow'] = splitRules(options.allowedTools);
  if (options.disallowedTools) flags['permissions.deny'] = splitRules(options.disallowedTools);
  if (options.maxTurns !== undefined) flags.maxTurns = options.maxTurns;
  if (options.maxBudgetUsd !== undefined) flags.maxBudgetUsd = options.maxBudgetUsd;
  if (options.pluginDir.length > 0) flags['plugins.dirs'] = options.pluginDir;
  if (options.debug) flags.debug = true;
  return flags;
}

/** Splits `read_file, shell(git *), edit_file(src/**)` on commas outside parentheses. */
export function splitRules(text: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      if (current.trim()) rules.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  if (current.trim()) rules.push(current.trim());
  return rules;
}
