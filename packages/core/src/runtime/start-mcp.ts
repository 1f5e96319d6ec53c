import type { McpServerEntry } from '../mcp/mcp-config.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import { startSessionMcp } from '../mcp/session-mcp.js';
import type { PluginCatalog } from '../plugins/index.js';
import { builtinPluginsDir, programEnvironment, type RuntimeBase } from './base.js';
import type { AgentSessionOptions } from './session-options.js';

export interface StartMcpInput {
  base: RuntimeBase;
  options: AgentSessionOptions;
  catalog: PluginCatalog;
  workspaceTrusted: boolean;
  /** A trusted repository's server added since it was trusted (settle-declarations.ts). */
  skipServer?: (server: McpServerEntry) => boolean;
  warnings: string[];
  /** Registers a stop for createAgentSession to call if building the session fails later. */
  onFailure: (stop: () => Promise<void>) => void;
}

/**
 * Part 4: starts the session's MCP servers without waiting for them: they get ready in their own
 * processes while the client, the profile, its guardrails and the model are settled. Await the
 * result where the tools are needed; with no server configured the set is empty.
 */
export function startMcp(input: StartMcpInput): Promise<McpServerSet> {
  const { base, options, catalog } = input;
  const values = base.config.values;
  const mcpStarting = startSessionMcp(
    {
      workspaceRoot: base.workspace.root,
      cwd: base.workspace.cwd,
      env: base.env,
      pluginRoots: catalog.plugins.map((plugin) => plugin.root),
      configArguments: options.mcpConfig ?? [],
      strict: options.strictMcpConfig ?? false,
      ...(options.mcpServers ? { programServers: options.mcpServers } : {}),
      ...(options.inProcessMcpServers?.length
        ? {
            inProcessServers: options.inProcessMcpServers.map((server) => ({
              name: server.name,
              source: 'the program',
              config: { transport: 'sdk' as const, ...server },
            })),
          }
        : {}),
      ...(values.mcpServers ? { settingsServers: values.mcpServers } : {}),
      ...(values.mcp.timeoutMs ? { timeoutMs: values.mcp.timeoutMs } : {}),
      projectTrusted: input.workspaceTrusted,
      // Custom providers' keys (apiKeyEnv) too, not only the built-in ones connectMcpServers removes.
      serverEnv: programEnvironment(base),
      builtinPluginsDir: options.builtinPluginsDir ?? builtinPluginsDir(),
      ...(input.skipServer ? { skip: input.skipServer } : {}),
      fromLastRun: options.mcpFromLastRun ?? false,
    },
    input.warnings,
  );
  // Also marks a rejection as handled until the caller's `await` reports it.
  const mcpSettled = mcpStarting.catch(() => undefined);
  input.onFailure(async () => (await mcpSettled)?.close());
  return mcpStarting;
}
