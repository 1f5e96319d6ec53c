import type { HookCommand } from '../hooks/index.js';
import type { LspServerDeclaration } from '../lsp/declarations.js';
import type { McpServerEntry } from '../mcp/mcp-config.js';
import type { PluginCatalog } from '../plugins/index.js';
import { builtinPluginsDir, type RuntimeBase } from './base.js';
import { describeDeclaration, hookId, lspServerId, mcpServerId, newSinceTrust } from './repository-declarations.js';
import type { AgentSessionOptions } from './session-options.js';

export interface NewDeclarationsInput {
  base: RuntimeBase;
  options: AgentSessionOptions;
  catalog: PluginCatalog;
  workspaceTrusted: boolean;
  warnings: string[];
}

/** What start-mcp, session-lsp and session-hooks leave out: servers and hooks added after the folder was trusted. */
export interface NewDeclarations {
  skipServer?: (server: McpServerEntry) => boolean;
  skipLspServer?: (server: LspServerDeclaration) => boolean;
  skipHook?: (hook: HookCommand) => boolean;
  /** The repository's statusLine command changed since trust and is not approved: the chat draws none. */
  skipStatusLine?: boolean;
}

/**
 * Part 3b: trust covers what the repository declared when it was trusted. A server or hook added
 * since (and not approved: the chat asks before it builds the session, `beans trust` approves all)
 * does not run, with one warning line. `--trust` trusts everything for the run.
 */
export async function settleNewDeclarations(input: NewDeclarationsInput): Promise<NewDeclarations> {
  const { base, options } = input;
  if (!input.workspaceTrusted || options.trustWorkspace === true) return {};
  const fresh = await newSinceTrust({
    workspaceRoot: base.workspace.root,
    env: base.env,
    plugins: input.catalog.plugins,
    builtinPluginsDir: options.builtinPluginsDir ?? builtinPluginsDir(),
    settingSources: options.settingSources,
  });
  if (fresh.length === 0) return {};
  input.warnings.push(
    `This folder was trusted before it declared these, so they did not run: ${fresh.map((d) => describeDeclaration(d, base.workspace.root)).join('; ')}. Run \`beans trust\` to approve them, or start \`beans\` (chat) to be asked about each.`,
  );
  const servers = new Set(fresh.filter((d) => d.kind === 'MCP server').map((d) => d.id));
  const lspServers = new Set(fresh.filter((d) => d.kind === 'LSP server').map((d) => d.id));
  const hooks = new Set(fresh.filter((d) => d.kind === 'hook').map((d) => d.id));
  return {
    skipServer: (server) => servers.has(mcpServerId(server)),
    skipLspServer: (server) => lspServers.has(lspServerId(server)),
    skipHook: (hook) => hooks.has(hookId(hook)),
    skipStatusLine: fresh.some((d) => d.kind === 'status line'),
  };
}
