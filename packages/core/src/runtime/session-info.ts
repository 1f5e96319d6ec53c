import type { McpServerSet, McpServerStatus } from '../mcp/mcp-servers.js';
import { mcpToolName } from '../mcp/mcp-tools.js';
import type { DeferredTools } from '../tools/deferred-tools.js';
import { describeProfile } from '../plugins/index.js';
import { VERSION } from '../version.js';
import { SESSION_COMMAND_NAMES } from './session-commands.js';
import type { AgentSession } from './agent-session-types.js';
import type { RuntimeBase } from './base.js';
import type { CatalogAndSubagents } from './catalog-subagents.js';
import type { Handoffs } from './handoffs.js';
import type { Live } from './live.js';
import type { SettledAgent } from './settle-agent.js';

export interface SessionInfoInput {
  base: RuntimeBase;
  live: Live;
  mcp: McpServerSet | undefined;
  agent: Pick<SettledAgent, 'profile' | 'providerId'>;
  plugins: CatalogAndSubagents;
  handoffs: Pick<Handoffs, 'controller'>;
}

export type SessionInfo = Pick<AgentSession, 'describeProfile' | 'initInfo' | 'mcpServers' | 'startMcpServers'>;

/** What the session says about itself: `/agent`, `system/init`, `/mcp`; read when asked, from the live parts. */
export function describeSession(input: SessionInfoInput): SessionInfo {
  const { base, live, mcp, handoffs } = input;
  const settled = input.agent;
  const { catalog, subagents } = input.plugins;
  return {
    describeProfile: () => {
      const active = handoffs.controller.active.name;
      return active === handoffs.controller.initial.name
        ? describeProfile(settled.profile)
        : `${describeProfile(settled.profile)}\nThe conversation was handed off: the ${active} agent holds it now.`;
    },
    initInfo: () => ({
      cwd: base.workspace.cwd,
      model: live.session.model,
      provider: settled.providerId,
      tools: live.session.tools.names(),
      permissionMode: live.permissionMode,
      // As Claude Code lists them: the session's own commands, then the plugins'.
      slashCommands: [...SESSION_COMMAND_NAMES, ...catalog.commands().map((command) => command.name)],
      // The agents `task` can run, as Claude Code lists them: general-purpose, inline, then plugin agents.
      agents: subagents.map((definition) => definition.name),
      skills: catalog.skills().map((skill) => skill.name),
      plugins: catalog.plugins.map((plugin) => ({ name: plugin.name, path: plugin.root, ...(plugin.version ? { version: plugin.version } : {}) })),
      version: VERSION,
      mcpServers: (mcp?.statuses() ?? []).map((server) => ({ name: server.name, status: server.status })),
    }),
    mcpServers: () => (mcp?.statuses() ?? []).map((server) => withDeferral(server, live.session.tools.deferral)),
    startMcpServers: () => mcp?.startRemembered(),
  };
}

/** A server's status with which of its tools are deferred and loaded, for `/mcp`. */
function withDeferral(server: McpServerStatus, deferral: DeferredTools | undefined): McpServerStatus {
  const names = server.tools.map((tool) => mcpToolName(server.name, tool));
  if (!deferral || !names.some((name) => deferral.isDeferred(name))) return server;
  const loaded = server.tools.filter((_tool, index) => deferral.loaded().includes(names[index]));
  return { ...server, deferred: { loaded } };
}
