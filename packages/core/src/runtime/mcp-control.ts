import { parseMcpServers, type McpServerEntry } from '../mcp/mcp-config.js';
import type { McpServerSet, McpSetServersResult } from '../mcp/mcp-servers.js';
import type { AgentSession } from './agent-session-types.js';
import type { RuntimeBase } from './base.js';

export interface McpControlInput {
  base: RuntimeBase;
  mcp: McpServerSet | undefined;
}

export type McpControl = Pick<AgentSession, 'toggleMcpServer' | 'reconnectMcpServer' | 'setMcpServers'>;

/**
 * Live MCP control, as Claude Code's mcp_toggle / mcp_reconnect / mcp_set_servers: the SDK
 * protocol, `query()` and chat's `/mcp` all come here. A change reaches the tools of the next
 * request through the set's tool-change listeners (assemble-tools.ts, defer-tools.ts).
 */
export function createMcpControl(input: McpControlInput): McpControl {
  const servers = (): McpServerSet => {
    // startSessionMcp always returns a set (empty without servers); this guards a hand-built session.
    if (!input.mcp) throw new Error('This session has no MCP server set.');
    return input.mcp;
  };
  return {
    toggleMcpServer: (name, enabled) => servers().toggle(name, enabled),
    reconnectMcpServer: (name) => servers().reconnect(name),
    async setMcpServers(configs) {
      // Each server is read on its own, so one bad entry is an error of its own and the rest apply.
      const entries: McpServerEntry[] = [];
      const errors: Record<string, string> = {};
      for (const [name, config] of Object.entries(configs)) {
        const parsed = parseMcpServers({ [name]: config }, 'mcp_set_servers', input.base.env);
        entries.push(...parsed.servers);
        if (parsed.problems.length > 0) errors[name] = parsed.problems.map((problem) => problem.message).join(' ');
      }
      const result: McpSetServersResult = await servers().setServers(entries);
      return { ...result, errors: { ...errors, ...result.errors } };
    },
  };
}
