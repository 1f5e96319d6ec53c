import type { SettingSource } from '../config/index.js';
import { isRepositoryPlugin } from '../config/trust.js';
import { loadHooks, readSettingsHooks } from './load-hooks.js';
import type { HookSet } from './types.js';

/**
 * The hooks of one workspace: user, project and local settings (project and local only when
 * `trusted`) and every loaded plugin; plugins inside the workspace (other than Beans' own built-in
 * ones) are the repository's, so their hooks also wait for trust. What `createAgentSession` and
 * `beans hooks list` both call.
 */
export async function loadWorkspaceHooks(options: {
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  settingSources?: readonly SettingSource[];
  plugins: readonly { name: string; root: string }[];
  trusted: boolean;
  /** Beans' built-in plugins folder, which may lie inside the workspace when Beans works on itself. */
  builtinPluginsDir?: string;
}): Promise<HookSet> {
  const settingsHooks = await readSettingsHooks({ workspaceRoot: options.workspaceRoot, env: options.env, settingSources: options.settingSources });
  const plugins = options.plugins.map((plugin) => ({
    name: plugin.name,
    root: plugin.root,
    repository: isRepositoryPlugin(plugin.root, options.workspaceRoot, options.builtinPluginsDir),
  }));
  return loadHooks({ settingsHooks, trusted: options.trusted, plugins });
}
