import type { BeansConfig } from '../config/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import { startSessionMcp } from '../mcp/session-mcp.js';
import type { DeclarationsInput } from './repository-declarations.js';
import type { AgentSessionOptions } from './session-options.js';
import type { WorkspaceTrust } from './workspace-trust.js';

export interface StartMcpInput {
  /** Where servers are declared: the workspace's `.mcp.json`, its plugins', the built-in plugins'. */
  sources: Pick<DeclarationsInput, 'workspaceRoot' | 'env' | 'plugins' | 'builtinPluginsDir'>;
  /** The folder servers start in. */
  cwd: string;
  /** The repository's own servers start only when trusted, and not one added since (workspace-trust.ts). */
  trust: Pick<WorkspaceTrust, 'trusted' | 'skipServer'>;
  settings: Pick<BeansConfig, 'mcpServers' | 'mcp'>;
  /** The environment servers start with: without any configured provider's key (custom providers' apiKeyEnv too). */
  serverEnv: NodeJS.ProcessEnv;
  options: Pick<AgentSessionOptions, 'mcpConfig' | 'strictMcpConfig' | 'mcpServers' | 'mcpFromLastRun'>;
  /** Registers a stop for createAgentSession to call if building the session fails later. */
  onFailure: (stop: () => Promise<void>) => void;
}

export interface StartedMcp {
  servers: McpServerSet;
  /** Config problems, servers left out (untrusted), servers that failed to start. */
  warnings: string[];
}

/**
 * Part: starts the session's MCP servers without waiting for them: they get ready in their own
 * processes while the client, the profile, its guardrails and the model are settled. Await the
 * result where the tools are needed; with no server configured the set is empty.
 */
export function startMcp(input: StartMcpInput): Promise<StartedMcp> {
  const { sources, settings, options } = input;
  const warnings: string[] = [];
  const mcpStarting = startSessionMcp(
    {
      workspaceRoot: sources.workspaceRoot,
      cwd: input.cwd,
      env: sources.env,
      pluginRoots: sources.plugins.map((plugin) => plugin.root),
      configArguments: options.mcpConfig ?? [],
      strict: options.strictMcpConfig ?? false,
      ...(options.mcpServers ? { programServers: options.mcpServers } : {}),
      ...(settings.mcpServers ? { settingsServers: settings.mcpServers } : {}),
      ...(settings.mcp.timeoutMs ? { timeoutMs: settings.mcp.timeoutMs } : {}),
      projectTrusted: input.trust.trusted,
      serverEnv: input.serverEnv,
      ...(sources.builtinPluginsDir ? { builtinPluginsDir: sources.builtinPluginsDir } : {}),
      skip: input.trust.skipServer,
      fromLastRun: options.mcpFromLastRun ?? false,
    },
    warnings,
  );
  const started = mcpStarting.then((servers) => ({ servers, warnings }));
  // Also marks a rejection as handled until the caller's `await` reports it.
  const settled = started.catch(() => undefined);
  input.onFailure(async () => (await settled)?.servers.close());
  return started;
}
