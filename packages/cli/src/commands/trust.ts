import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import {
  builtinPluginsDir,
  loadCatalog,
  loadRuntimeBase,
  recordTrustedDeclarations,
  resolveWorkspace,
  setTrustDecision,
  trustDecisionFor,
  UsageError,
  type TrustDecision,
} from '@beans/core';

/**
 * `beans trust [DIR]` and `beans untrust [DIR]`. Without DIR: the workspace (git root) of the current
 * folder, which is what a run from here would judge.
 */
export async function trustCommand(decision: TrustDecision, dir: string | undefined): Promise<number> {
  const folder = dir === undefined ? resolveWorkspace(process.cwd()).root : path.resolve(dir);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new UsageError(`${folder} is not a folder. Name an existing folder, or run the command inside it.`);
  const recorded = await setTrustDecision(folder, decision, process.env);
  if (decision === 'trusted') {
    process.stdout.write(`Trusted ${recorded}: settings in it and in folders below it may loosen permissions and add hooks and MCP servers.\n`);
    // Trust covers the servers and hooks it declares now; one added later asks before it runs.
    const base = await loadRuntimeBase({ cwd: recorded, trusted: true });
    if (base.workspace.root === recorded) {
      const count = await recordTrustedDeclarations({
        workspaceRoot: recorded,
        env: process.env,
        plugins: (await loadCatalog(base)).plugins,
        builtinPluginsDir: builtinPluginsDir(),
      });
      if (count > 0) process.stdout.write(`It declares ${count} MCP server(s) and hook(s); one added later asks before it first runs.\n`);
    }
    return 0;
  }
  process.stdout.write(`No longer trusted: ${recorded}. Its own looser settings, hooks and MCP servers will be ignored.\n`);
  // A trusted folder above does not override an explicit decision, but say which one was there.
  const above = trustDecisionFor(path.dirname(recorded), process.env);
  if (above?.decision === 'trusted') process.stdout.write(`(${above.folder} stays trusted; this decision overrides it for ${recorded}.)\n`);
  return 0;
}
