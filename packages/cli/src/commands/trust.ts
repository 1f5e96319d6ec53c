import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { resolveWorkspace, setTrustDecision, trustDecisionFor, trustFolder, UsageError, type TrustDecision } from '@beans/core';

/**
 * `beans trust [DIR]` and `beans untrust [DIR]`. Without DIR: the workspace (git root) of the current
 * folder, which is what a run from here would judge.
 */
export async function trustCommand(decision: TrustDecision, dir: string | undefined): Promise<number> {
  const folder = dir === undefined ? resolveWorkspace(process.cwd()).root : path.resolve(dir);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new UsageError(`${folder} is not a folder. Name an existing folder, or run the command inside it.`);
  if (decision === 'trusted') {
    // Core records it: trust covers the servers and hooks it declares now; one added later asks before it runs.
    const trusted = await trustFolder(folder, process.env);
    process.stdout.write(`Trusted ${trusted.folder}: settings in it and in folders below it may loosen permissions and add hooks and MCP servers.\n`);
    if (trusted.declarations > 0)
      process.stdout.write(`It declares ${trusted.declarations} MCP server(s) and hook(s); one added later asks before it first runs.\n`);
    return 0;
  }
  const recorded = await setTrustDecision(folder, decision, process.env);
  process.stdout.write(`No longer trusted: ${recorded}. Its own looser settings, hooks and MCP servers will be ignored.\n`);
  // A trusted folder above does not override an explicit decision, but say which one was there.
  const above = trustDecisionFor(path.dirname(recorded), process.env);
  if (above?.decision === 'trusted') process.stdout.write(`(${above.folder} stays trusted; this decision overrides it for ${recorded}.)\n`);
  return 0;
}
