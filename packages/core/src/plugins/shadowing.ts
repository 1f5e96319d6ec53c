import path from 'node:path';
import { isInside } from '../workspace/paths.js';
import { shippedPluginsDir } from './builtin-catalog.js';
import type { PluginCatalog, PluginEntry } from './types.js';

/**
 * When `/name` runs a command (or skill) from the workspace that hides a built-in or user one of the
 * same name, one sentence saying so (issue 53 item 2): the person typed /review expecting Beans'
 * review, and a file in the repository (perhaps one the model wrote) ran instead. Undefined when
 * nothing is hidden, or the name was typed qualified (`/x:review` is unambiguous).
 */
export function shadowingNotice(
  typed: string,
  used: PluginEntry,
  catalog: PluginCatalog,
  workspaceRoot: string,
  builtinDir: string = shippedPluginsDir(),
): string | undefined {
  if (typed.includes(':')) return undefined;
  const fromWorkspace = (entry: PluginEntry) => isInside(workspaceRoot, entry.path) && !isInside(builtinDir, entry.path);
  if (!fromWorkspace(used)) return undefined;
  const same = catalog.plugins.flatMap(
    (plugin) => (used.kind === 'command' ? plugin.commands : used.kind === 'skill' ? plugin.skills : plugin.agents) as PluginEntry[],
  );
  const hidden = same.find((entry) => entry.name === used.name && entry.path !== used.path && !fromWorkspace(entry));
  if (!hidden) return undefined;
  const whose = isInside(builtinDir, hidden.path) ? 'the built-in' : 'your own';
  const where = path.relative(workspaceRoot, used.path).split(path.sep).join('/');
  return `/${typed} runs ${where} from this workspace, which shadows ${whose} /${hidden.name} (${hidden.qualifiedName}); type /${hidden.qualifiedName} for that one.`;
}
