import path from 'node:path';
import type { AfterToolCall, BeforeToolCall } from '../agent/tool-hooks.js';
import { collectLspServers } from '../lsp/collect.js';
import { EditDiagnostics } from '../lsp/edit-diagnostics.js';
import { createLspTool } from '../lsp/lsp-tool.js';
import { LspManager, type LspServerStatus } from '../lsp/manager.js';
import type { BeansConfig } from '../config/index.js';
import type { AnyTool } from '../tools/tool.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Live } from './live.js';
import type { DeclarationsInput } from './repository-declarations.js';
import type { WorkspaceTrust } from './workspace-trust.js';

export interface SessionLspInput {
  workspace: Workspace;
  /** Where servers are declared: plugins, the workspace's `.lsp.json`, the built-in plugins. */
  sources: Pick<DeclarationsInput, 'plugins' | 'builtinPluginsDir'>;
  /** The repository's own servers start only when trusted, and not one added since (workspace-trust.ts). */
  trust: Pick<WorkspaceTrust, 'trusted' | 'skipLspServer'>;
  settings: BeansConfig['lsp'];
  /** The environment servers start with: without any configured provider's key. */
  serverEnv: NodeJS.ProcessEnv;
  live: Live;
}

/** The session's language servers, as the root wires them in and front ends show them. */
export interface SessionLsp {
  /** The `lsp` tool; absent when no server is declared, so the model is not told of it. */
  tool?: AnyTool;
  /** Diagnostics after write_file/edit_file, at the session's tool seam. */
  seam?: { beforeToolCall: BeforeToolCall; afterToolCall: AfterToolCall };
  /** Every declared server with its state (`beans lsp list`, `/lsp`). */
  list(): LspServerStatus[];
  /** Stops every running server. */
  close(): Promise<void>;
  /** Declaration problems, and the repository's servers left out because it is not trusted. */
  warnings: string[];
}

/** The tools whose edits are checked; their `path` parameter names the file. */
const EDIT_TOOLS = new Set(['write_file', 'edit_file']);

/**
 * Part: language servers (issue #35). Reads the declarations (plugins, `lsp.servers`, the
 * workspace's `.lsp.json`, the repository's only when trusted) and starts nothing: a server starts
 * on the first file of its language, from an edit or the `lsp` tool. With no declaration the
 * session is exactly as without this part (no tool, no seam).
 */
export function createSessionLsp(input: SessionLspInput): SessionLsp {
  const { workspace, settings, live } = input;
  const collected = collectLspServers({
    workspaceRoot: workspace.root,
    plugins: input.sources.plugins,
    ...(settings.servers ? { settingsServers: settings.servers } : {}),
    projectTrusted: input.trust.trusted,
    ...(input.sources.builtinPluginsDir ? { builtinPluginsDir: input.sources.builtinPluginsDir } : {}),
    skip: input.trust.skipLspServer,
  });
  const warnings = collected.problems.map((problem) => `${problem.file}: ${problem.message}`);
  if (collected.ignored.length)
    warnings.push(`${collected.ignored.length} language server(s) this repository declares did not start because the workspace is not trusted.`);
  if (collected.servers.length === 0) return { list: () => [], close: async () => undefined, warnings };

  const manager = new LspManager({
    servers: collected.servers,
    workspaceRoot: workspace.root,
    env: input.serverEnv,
    warn: (message) => live.notices([message]),
  });
  const tool = createLspTool(manager, { requestTimeoutMs: settings.requestTimeoutMs });
  // The least quiet after a publication; a server whose answers come in parts waits longer (server.ts).
  const diagnostics = new EditDiagnostics(manager, { timeoutMs: settings.diagnosticsTimeoutMs, quietMs: 80 });
  const fileOf = (call: { tool: AnyTool; input: unknown }) => {
    const target = EDIT_TOOLS.has(call.tool.name) ? (call.input as { path?: unknown } | undefined)?.path : undefined;
    if (typeof target !== 'string') return undefined;
    try {
      return resolveInWorkspace(workspace, target);
    } catch {
      return undefined;
    }
  };
  const seam = settings.diagnostics
    ? {
        beforeToolCall: (async (call) => {
          const file = fileOf(call);
          if (file) await diagnostics.beforeEdit(file.absolute);
          return undefined;
        }) satisfies BeforeToolCall,
        afterToolCall: (async ({ result, ...call }) => {
          if (
            call.tool.name === 'shell' &&
            typeof result.content === 'string' &&
            !(call.input as { run_in_background?: boolean } | undefined)?.run_in_background
          ) {
            // A command may have changed files the servers have open (a formatter, a code generator, sed).
            const note = await diagnostics.afterCommand((absolute) => path.relative(workspace.root, absolute));
            return note ? { ...result, content: `${result.content}\n\n${note}` } : undefined;
          }
          const file = fileOf(call);
          if (!file || result.isError || typeof result.content !== 'string') return undefined;
          const note = await diagnostics.afterEdit(file.absolute, file.relative);
          return note ? { ...result, content: `${result.content}\n\n${note}` } : undefined;
        }) satisfies AfterToolCall,
      }
    : undefined;
  return { tool, ...(seam ? { seam } : {}), list: () => manager.list(), close: () => manager.close(), warnings };
}
