import { parseToolRules } from '../permissions/rules.js';
import { loadRuntimeBase, type RuntimeBase } from './base.js';
import { parsePermissionMode } from './permission-mode.js';
import type { AgentSessionOptions } from './session-options.js';

/** The workspace and its configuration. */
export interface SettledWorkspace {
  base: RuntimeBase;
  /** What loading the settings found to warn about (the session's first warnings). */
  warnings: string[];
}

/** The options that say where to work and are settings (the top configuration layer). */
export type WorkspaceOptions = Pick<
  AgentSessionOptions,
  | 'cwd'
  | 'env'
  | 'flags'
  | 'settingSources'
  | 'trustWorkspace'
  | 'provider'
  | 'model'
  | 'permissionMode'
  | 'allowedTools'
  | 'disallowedTools'
  | 'maxTurns'
  | 'maxBudgetUsd'
  | 'pluginDirs'
>;

/** Part: finds the workspace and loads its settings, with the options that are settings on top. */
export async function settleWorkspace(options: WorkspaceOptions): Promise<SettledWorkspace> {
  const base = await loadRuntimeBase({
    cwd: options.cwd,
    env: options.env,
    flags: optionFlags(options),
    settingSources: options.settingSources,
    trusted: options.trustWorkspace || undefined,
  });
  return { base, warnings: [...base.config.warnings] };
}

/** Options that are settings become the top configuration layer, so `beans config` shows them as flags. */
function optionFlags(options: WorkspaceOptions): Record<string, unknown> {
  const flags: Record<string, unknown> = { ...options.flags };
  if (options.provider) flags.provider = options.provider;
  if (options.model) flags.model = options.model;
  if (options.permissionMode) flags['permissions.mode'] = parsePermissionMode(options.permissionMode);
  if (options.allowedTools?.length) flags['permissions.allow'] = parseToolRules(options.allowedTools).map((rule) => rule.source);
  if (options.disallowedTools?.length) flags['permissions.deny'] = parseToolRules(options.disallowedTools).map((rule) => rule.source);
  if (options.maxTurns !== undefined) flags.maxTurns = options.maxTurns;
  if (options.maxBudgetUsd !== undefined) flags.maxBudgetUsd = options.maxBudgetUsd;
  if (options.pluginDirs?.length) flags['plugins.dirs'] = options.pluginDirs;
  return flags;
}
