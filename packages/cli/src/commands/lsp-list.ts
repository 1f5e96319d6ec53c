import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { builtinPluginsDir, collectLspServers, commandLineOf, decideWorkspaceTrust, showUntrusted, type LspServerDeclaration } from '@beans/core';
import { loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

type Availability = 'ready' | 'not installed' | 'disabled';

/**
 * `beans lsp list [--json]`: every declared language server, where it comes from, the languages it
 * serves and whether a session could start it. Starts nothing: sessions start a server on the first
 * file of its language. A repository's own servers in an untrusted folder are listed as disabled.
 */
export async function lspList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const catalog = await loadCatalog(base);
  // Core's trust decision, as a session's: a server the folder declared after it was trusted does not start until approved.
  const trust = await decideWorkspaceTrust({ workspaceRoot: base.workspace.root, env: base.env, plugins: catalog.plugins, trustFlag: options.trust });
  const settings = base.config.values.lsp;
  const collected = collectLspServers({
    workspaceRoot: base.workspace.root,
    plugins: catalog.plugins,
    ...(settings.servers ? { settingsServers: settings.servers } : {}),
    projectTrusted: trust.trusted,
    builtinPluginsDir: builtinPluginsDir(),
    skip: trust.skipLspServer,
  });
  const env = { ...base.env };
  const rows = [
    ...collected.servers.map((server) => row(server, onPath(server, env) ? 'ready' : 'not installed')),
    ...collected.ignored.map((server) => row(server, 'disabled', 'this folder is not trusted')),
  ];
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ servers: rows, problems: collected.problems })}\n`);
    return 0;
  }
  const lines = rows.map(
    (r) =>
      `${r.name}  ${r.status}  ${r.extensions.join(' ')}\n  ${showUntrusted(r.command, 400)}  (${showUntrusted(r.origin)}${r.reason ? `; ${r.reason}` : ''})`,
  );
  if (rows.length === 0)
    lines.push('No language servers configured. Install a Claude Code LSP plugin, or add them under "lsp": {"servers": {...}} in your settings.');
  for (const problem of collected.problems) lines.push(`problem: ${problem.file}: ${problem.message}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function row(server: LspServerDeclaration, status: Availability, reason?: string) {
  return {
    name: server.name,
    origin: server.origin,
    file: server.file,
    command: commandLineOf(server),
    languages: [...new Set(Object.values(server.extensionToLanguage))],
    extensions: Object.keys(server.extensionToLanguage),
    status,
    ...(reason ? { reason } : {}),
  };
}

/** True when the command is a path to an executable, or found on PATH (the server's own env PATH wins). */
function onPath(server: LspServerDeclaration, env: NodeJS.ProcessEnv): boolean {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (server.command.includes('/')) return executable(path.resolve(server.command));
  const search = server.env.PATH ?? env.PATH ?? '';
  return search.split(path.delimiter).some((dir) => dir !== '' && executable(path.join(dir, server.command)));
}
