import type { SettingSource } from '../config/index.js';
import { loadHooks, readSettingsHooks } from './load-hooks.js';
import type { HookSet } from './types.js';

/**
 * The hooks of one workspace: user, project and local settings (project and local only when
 * `trusted`) and every loaded plugin. What `createAgentSession` and `beans hooks list` both call.
 */
export async function loadWorkspaceHooks(options: {
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  settingSources?: readonly SettingSource[];
  plugins: readonly { name: string; root: string }[];
  trusted: boolean;
}): Promise<HookSet> {
  const settingsHooks = await readSettingsHooks({ workspaceRoot: options.workspaceRoot, env: options.env, settingSources: options.settingSources });
  return loadHooks({ settingsHooks, trusted: options.trusted, plugins: options.plugins });
}
