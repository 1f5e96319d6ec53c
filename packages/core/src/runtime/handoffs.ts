import type { ChatSession } from '../agent/chat-session.js';
import { resolveModelAlias } from '../llm/index.js';
import { createSessionHandoffs, HANDOFF_TOOL_NAME, HandoffError, type HandoffInfo, type SubagentDefinition } from '../subagents/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import type { RuntimeBase } from './base.js';
import { deferChildTools } from './defer-tools.js';
import type { ConversationLogs } from './conversation-logs.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { SessionTools } from './assemble-tools.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SettledAgent } from './settle-agent.js';
import type { SystemPrompts } from './system-prompt.js';

export interface HandoffsInput {
  base: RuntimeBase;
  options: AgentSessionOptions;
  agent: SettledAgent;
  subagents: readonly SubagentDefinition[];
  tools: SessionTools;
  permissions: Pick<PermissionChain, 'isRemoved'>;
  prompts: SystemPrompts;
  /** Its MCP tools are deferred for the agent taking over as for the first one (named with their servers' descriptions). */
  mcp: McpServerSet | undefined;
  logs: ConversationLogs;
  live: Live;
  warnings: string[];
}

export type Handoffs = ReturnType<typeof createSessionHandoffs> & {
  /** A resumed conversation comes back to the agent that held it. */
  restoreAgent(target: ChatSession): Promise<void>;
};

/**
 * Part 12: the conversation may move to another agent (the handoff tool, `match:` routing, /agent).
 * Adds the `handoff` tool to the first agent's tools when it may hand off.
 */
export function createHandoffs(input: HandoffsInput): Handoffs {
  const { options, agent, tools, logs, live, warnings } = input;
  const values = input.base.config.values;
  const handoffs = createSessionHandoffs({
    agents: input.subagents,
    profile: agent.profile,
    available: tools.available,
    keptTools: tools.keptToolNames,
    offered: !input.permissions.isRemoved(HANDOFF_TOOL_NAME),
    systemPromptFor: async (target, instructions, agentTools) => {
      const listing = deferChildTools(agentTools, { base: input.base, agent, mcp: input.mcp });
      return (await input.prompts.systemPromptFor(instructions, target, agentTools)) + listing;
    },
    modelFor: (agentModel) =>
      agentModel && agentModel !== 'inherit' && !options.model && !values.model ? resolveModelAlias(agent.providerId, agentModel, agent.model) : agent.model,
    session: () => live.session,
    recordAgent: (target, name) => logs.get(target)?.recordMeta({ kind: 'agent', agent: name }),
    beforeApply: programHandoffHooks(options),
  });
  handoffs.withHandoffTool(tools.tools);
  const restoreAgent = async (target: ChatSession) => {
    const name = logs.get(target)?.restoredAgent;
    if (!name || name === handoffs.controller.active.name) return;
    await handoffs
      .handoff(name, 'the session was resumed', 'command')
      .catch((error: Error) => warnings.push(`Could not return to the ${name} agent: ${error.message}`));
  };
  return { ...handoffs, restoreAgent };
}

/**
 * The program's `onHandoff` (it may refuse the handoff by throwing: the model is told why) and its
 * `handoffInputFilter` (the history the new agent reads from now on), before anything changes.
 */
function programHandoffHooks(options: AgentSessionOptions): ((handoff: HandoffInfo, session: ChatSession) => Promise<void>) | undefined {
  if (!options.onHandoff && !options.handoffInputFilter) return undefined;
  return async (handoff, session) => {
    try {
      await options.onHandoff?.(handoff, options.context);
    } catch (error) {
      throw new HandoffError(`The handoff to ${handoff.to} was refused: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (options.handoffInputFilter)
      session.replaceHistory(await options.handoffInputFilter({ ...handoff, history: [...session.messages], context: options.context }));
  };
}
