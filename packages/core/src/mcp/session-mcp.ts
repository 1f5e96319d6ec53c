import path from 'node:path';
import { stateDir } from '../config/paths.js';
import { showUntrusted } from '../config/show-untrusted.js';
import { collectMcpServers, type McpSources } from './collect-servers.js';
import { connectMcpServers, type McpServerSet } from './mcp-servers.js';

export interface SessionMcpInput extends Omit<McpSources, 'projectTrusted'> {
  projectTrusted?: boolean;
  /** The environment servers start with (default: `env` without the built-in providers' keys). */
  serverEnv?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Servers remembered from an earlier run are not waited for (AgentSessionOptions.mcpFromLastRun). */
  fromLastRun?: boolean;
}

/**
 * Starts the MCP servers a session is configured with and returns them: an empty set when there are
 * none (the MCP SDK loads with the first connection only), which `setServers` can still fill. Config
 * problems, servers of an untrusted project and servers that failed to start become warnings; the
 * run goes on without them.
 */
export async function startSessionMcp(input: SessionMcpInput, warnings: string[]): Promise<McpServerSet> {
  const collected = collectMcpServers({ ...input, projectTrusted: input.projectTrusted ?? false });
  for (const problem of collected.problems) warnings.push(`MCP config ${problem.source}: ${problem.message}`);
  for (const skipped of collected.ignored) {
    warnings.push(
      `${showUntrusted(skipped.file)} asks to start MCP servers (${skipped.names.map((name) => showUntrusted(name)).join(', ')}); they were not started because this folder is not trusted.`,
    );
  }
  const servers = await connectMcpServers(collected.servers, {
    cwd: input.cwd,
    env: input.serverEnv ?? input.env,
    ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
    logDir: path.join(stateDir(input.env), 'mcp-logs'),
    ...(input.fromLastRun ? { rememberDir: path.join(stateDir(input.env), 'mcp-tools') } : {}),
  });
  for (const status of servers.statuses()) if (status.status === 'failed') warnings.push(status.error ?? `The MCP server ${status.name} failed to start.`);
  return servers;
}
