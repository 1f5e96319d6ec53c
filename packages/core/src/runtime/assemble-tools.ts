import type { BeansConfig } from '../config/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import { createLoadSkillTool, type PluginCatalog } from '../plugins/index.js';
import { toolsWithOwnSkills } from '../plugins/agent-skills.js';
import { builtinTools } from '../tools/builtin.js';
import { SCHEDULE_TOOLS } from '../tools/schedule-tools.js';
import { memoryTool, storeMemoryTool } from '../memory/memory-tool.js';
import { ToolRegistry } from '../tools/registry.js';
import type { AnyTool } from '../tools/tool.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SessionLsp } from './session-lsp.js';
import type { SessionSubagents } from './session-subagents.js';
import type { SettledAgent } from './settle-agent.js';

export interface AssembleToolsInput {
  /** `webFetch.*`: the web_fetch tool's limits. */
  settings: Pick<BeansConfig, 'webFetch'>;
  /** The program's own tools, and its memory store (the memory tool's description names no file then). */
  options: Pick<AgentSessionOptions, 'tools' | 'memory' | 'interactive' | 'hostsSchedules'>;
  /** The skills load_skill offers. */
  catalog: PluginCatalog;
  /** The profile's `tools:` list cuts the first agent's tools. */
  agent: Pick<SettledAgent, 'profile'>;
  /** The `task` tool. */
  children: Pick<SessionSubagents, 'taskTool'>;
  mcp: McpServerSet | undefined;
  /** The `lsp` tool, when a language server is declared. */
  lsp: Pick<SessionLsp, 'tool'>;
  permissions: Pick<PermissionChain, 'isRemoved'>;
  live: Live;
}

export interface SessionTools {
  /** Every tool an agent may be given, with tools removed by deny rules left out. */
  available: ToolRegistry;
  /** The session's own agent's tools (the profile's `tools:` list, plus the kept ones). */
  tools: ToolRegistry;
  /** The tools every agent keeps whatever its list says: the caller's and the MCP servers'. */
  keptToolNames: () => string[];
}

/** Part: the built-in, skill, task, caller and MCP tools, cut by deny rules and the profile. */
export function assembleTools(input: AssembleToolsInput): SessionTools {
  const { options, mcp, permissions } = input;
  const { profile } = input.agent;
  const lspTool = input.lsp.tool;
  // The lsp tool is kept by every agent like the MCP tools: it exists only because servers were configured.
  const extraTools = [...(options.tools ?? []), ...(lspTool ? [lspTool] : []), ...(mcp?.tools() ?? [])];
  // With the program's own memory store, the memory tool's description names no file.
  const builtins = builtinTools({ webFetch: input.settings.webFetch })
    .map((tool) => (options.memory && tool === memoryTool ? storeMemoryTool : tool))
    // Scheduled prompts fire only where a host runs them (the chat, served sessions, the SDK protocol): elsewhere the model is not offered them.
    .filter((tool) => (options.hostsSchedules ?? options.interactive) === true || !SCHEDULE_TOOLS.includes(tool));
  const allTools: AnyTool[] = [...builtins, createLoadSkillTool(input.catalog), input.children.taskTool, ...extraTools];
  // A bare tool name in the deny list removes the tool: the model never sees it.
  const available = new ToolRegistry(allTools.filter((tool) => !permissions.isRemoved(tool.name)));
  const profileTools = toolsWithOwnSkills(profile.tools, profile.skills);
  const tools = profileTools ? available.only([...profileTools, ...extraTools.map((tool) => tool.name)]) : new ToolRegistry(available.list());

  // notifications/tools/list_changed: a server's new or changed tools join the live registry, and
  // the ones it no longer offers leave it.
  let mcpToolNames = new Set(mcp?.tools().map((tool) => tool.name));
  mcp?.onToolsChanged(() => {
    const current = mcp.tools();
    const names = new Set(current.map((tool) => tool.name));
    // The first agent's tools, every agent's, and those of the agent the conversation was handed to.
    for (const registry of new Set([tools, available, input.live.session.tools])) {
      for (const name of mcpToolNames) if (!names.has(name)) registry.unregister(name);
      for (const tool of current) if (!permissions.isRemoved(tool.name)) registry.register(tool);
    }
    mcpToolNames = names;
  });
  return {
    available,
    tools,
    keptToolNames: () => [...(options.tools ?? []), ...(lspTool ? [lspTool] : []), ...(mcp?.tools() ?? [])].map((tool) => tool.name),
  };
}
