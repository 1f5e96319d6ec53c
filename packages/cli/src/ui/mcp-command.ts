import { heading, table, type Builtin } from './command-kit.js';

const ACTIONS = ['enable', 'disable', 'reconnect'] as const;

/**
 * `/mcp` lists the session's MCP servers; `/mcp enable|disable|reconnect <server>` changes one for
 * the rest of the session (Claude Code's mcp_toggle / mcp_reconnect): a disabled server's tools
 * leave the next request, and nothing is written to the settings.
 */
export const MCP_BUILTINS: Record<string, Builtin> = {
  mcp: {
    description: 'show each MCP server with its status and tools; enable, disable or reconnect one',
    argumentHint: '[enable | disable | reconnect <server>]',
    async run(args, { host, width, print, note, runTask }) {
      if (!args) {
        const rows = host
          .mcpServers()
          .map((server) => ({ name: server.name, description: `${server.status}${server.error ? `: ${server.error}` : ''}${mcpToolsText(server)}` }));
        return print([heading('MCP servers'), ...table(rows, width, 'No MCP servers configured (.mcp.json, settings "mcpServers", or --mcp-config).')]);
      }
      const [action, name, ...rest] = args.split(/\s+/);
      if (!ACTIONS.includes(action as (typeof ACTIONS)[number]) || !name || rest.length > 0)
        return note('error', `Usage: /mcp, or /mcp ${ACTIONS.join('|')} <server>.`);
      const known = host.mcpServers().map((server) => server.name);
      if (!known.includes(name)) return note('error', `There is no MCP server named ${name}${known.length ? ` (servers: ${known.join(', ')})` : ''}.`);
      if (action === 'disable') {
        await host.toggleMcpServer(name, false);
        return note('info', `Disabled ${name}: its tools leave the next request. /mcp enable ${name} brings it back.`);
      }
      await runTask(`${action === 'enable' ? 'Starting' : 'Reconnecting'} ${name}`, async () => {
        if (action === 'enable') await host.toggleMcpServer(name, true);
        // A failure shows below with the server's status; the task need not report it twice.
        else await host.reconnectMcpServer(name).catch(() => undefined);
      });
      const server = host.mcpServers().find((candidate) => candidate.name === name);
      if (server?.status === 'connected') note('info', `${name} is connected${server.tools.length ? ` with ${server.tools.length} tools` : ''}.`);
      else note('error', `${name} did not connect: ${server?.error ?? server?.status ?? 'unknown'}.`);
    },
  },
};

/** A server's tools for /mcp: their names, or how many are deferred and which are loaded. */
function mcpToolsText(server: { tools: string[]; deferred?: { loaded: string[] } }): string {
  if (server.tools.length === 0) return '';
  if (!server.deferred) return ` · ${server.tools.join(', ')}`;
  const loaded = server.deferred.loaded;
  return ` · ${server.tools.length} tools deferred (loaded with tool_search)${loaded.length ? `; loaded: ${loaded.join(', ')}` : ''}`;
}
