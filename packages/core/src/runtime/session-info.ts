import type { McpServerSet } from '../mcp/mcp-servers.js';
import { describeProfile } from '../plugins/index.js';
import { VERSION } from '../version.js';
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
      return active === handoffs.controller.initial.name ? describeProfile(settled.profile) : `${describeProfile(settled.profile)}\nThe conversation was handed off: the ${active} agent holds it now.`;
    },
    initInfo: () => ({
      cwd: base.workspace.cwd,
      model: live.session.model,
      provider: settled.providerId,
      tools: live.session.tools.names(),
      permissionMode: live.permissionMode,
      slashCommands: catalog.commands().map((command) => command.name),
      // The agents `task` can run, as Claude Code lists them: general-purpose, inline, then plugin agents.
      agents: subagents.map((definition) => definition.name),
      skills: catalog.skills().map((skill) => skill.name),
      plugins: catalog.plugins.map((plugin) => ({ name: plugin.name, path: plugin.root, ...(plugin.version ? { version: plugin.version } : {}) })),
      version: VERSION,
      mcpServers: (mcp?.statuses() ?? []).map((server) => ({ name: server.name, status: server.status })),
    }),
    mcpServers: () => mcp?.statuses() ?? [],
    startMcpServers: () => mcp?.startRemembered(),
  };
}
