import { resolveWorkspace } from '../workspace/workspace.js';
import { loadConfig, type ConfigFlags, type SettingSource } from './load-config.js';
import { trustDecisionFor, type IgnoredRequest } from './trust.js';

/** What the chat asks on first start in an untrusted folder whose settings ask for more. */
export interface TrustQuestion {
  workspaceRoot: string;
  /** Exactly what the folder's own settings ask for that is ignored until it is trusted. */
  requests: IgnoredRequest[];
}

export interface TrustQuestionOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
  settingSources?: readonly SettingSource[];
  /** `--trust`: nothing to ask. */
  trusted?: boolean;
}

/**
 * The question to ask, or undefined when there is none: nothing is asked for, the folder is trusted
 * (`--trust` included), or the user already decided for it or a folder above it (asked once).
 */
export async function workspaceTrustQuestion(options: TrustQuestionOptions = {}): Promise<TrustQuestion | undefined> {
  if (options.trusted) return undefined;
  const env = options.env ?? process.env;
  const workspace = resolveWorkspace(options.cwd ?? process.cwd());
  const loaded = await loadConfig({ workspaceRoot: workspace.root, env, flags: options.flags, settingSources: options.settingSources, cwd: workspace.cwd });
  if (loaded.ignored.length === 0 || trustDecisionFor(workspace.root, env)) return undefined;
  return { workspaceRoot: workspace.root, requests: loaded.ignored };
}
