import type { SettingSource } from '../config/index.js';
import path from 'node:path';
import { isInside, loadHooks, readSettingsHooks } from './load-hooks.js';
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
  const builtin = options.builtinPluginsDir && path.resolve(options.builtinPluginsDir);
  const plugins = options.plugins.map((plugin) => {
    const root = path.resolve(plugin.root);
    const repository = isInside(path.resolve(options.workspaceRoot), root) && !(builtin && (root === builtin || isInside(builtin, root)));
    return { name: plugin.name, root: plugin.root, repository };
  });
  return loadHooks({ settingsHooks, trusted: options.trusted, plugins });
}
