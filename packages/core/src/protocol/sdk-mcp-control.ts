import type { AgentSession } from '../runtime/agent-session.js';
import { mcpServerStatusInfo } from '../runtime/query.js';

/** The MCP control requests of Claude Code's protocol Beans answers, by subtype. */
export const MCP_CONTROL_SUBTYPES = new Set(['mcp_status', 'mcp_toggle', 'mcp_reconnect', 'mcp_set_servers']);

/**
 * Answers `mcp_status` (Query.mcpServerStatus), `mcp_toggle` (toggleMcpServer), `mcp_reconnect`
 * (reconnectMcpServer) and `mcp_set_servers` (setMcpServers) with the response body Claude Code
 * sends; throws with the reason for a request that fails (the caller answers it as an error).
 * `sdkServers`: the program's in-process servers named at initialize, which live in the program.
 */
export async function answerMcpControl(
  session: AgentSession,
  request: Record<string, unknown>,
  sdkServers: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  switch (request.subtype) {
    case 'mcp_status':
      // Claude Code's McpServerStatus shape (Beans' states are a subset of its).
      return { mcpServers: mcpServerStatusInfo(session.mcpServers()) };
    case 'mcp_toggle':
      if (typeof request.enabled !== 'boolean') throw new Error('mcp_toggle needs "enabled": true or false.');
      await session.toggleMcpServer(serverName(request), request.enabled);
      return {};
    case 'mcp_reconnect':
      await session.reconnectMcpServer(serverName(request));
      return {};
    case 'mcp_set_servers':
      return { ...(await setServers(session, request.servers, sdkServers)) };
    default:
      throw new Error(`Beans does not support the control request "${String(request.subtype)}".`);
  }
}

function serverName(request: Record<string, unknown>): string {
  if (typeof request.serverName !== 'string' || !request.serverName) throw new Error(`${String(request.subtype)} needs "serverName".`);
  return request.serverName;
}

/**
 * The SDK sends every in-process server it holds as `{ type: "sdk", name }` beside the process
 * servers; those registered at initialize keep running in the program, and a new one cannot join a
 * running Beans (its tools are bridged from initialize only): it is reported in `errors`.
 */
async function setServers(session: AgentSession, servers: unknown, sdkServers: ReadonlySet<string>) {
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new Error('mcp_set_servers needs "servers": an object of server configurations.');
  const processServers: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const [name, config] of Object.entries(servers)) {
    if ((config as { type?: unknown } | null)?.type !== 'sdk') processServers[name] = config;
    else if (!sdkServers.has(name)) errors[name] = `Beans takes in-process (sdk) MCP servers when the session starts only; ${name} was not among them.`;
  }
  const result = await session.setMcpServers(processServers);
  return { ...result, errors: { ...result.errors, ...errors } };
}
