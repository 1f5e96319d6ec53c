import type { ChatSession } from '../agent/chat-session.js';
import type { BeansConfig } from '../config/index.js';
import { resolveModelAlias } from '../llm/index.js';
import { createSessionHandoffs, HANDOFF_TOOL_NAME, HandoffError, type HandoffInfo, type SubagentDefinition } from '../subagents/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import { deferChildTools, type DeferSettings } from './defer-tools.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { SessionTools } from './assemble-tools.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SettledAgent } from './settle-agent.js';
import type { SystemPrompts } from './system-prompt.js';

/** The program's handoff callbacks, and whether a model was named (an agent's own `model:` applies only if not). */
export type HandoffOptions = Pick<AgentSessionOptions, 'model' | 'onHandoff' | 'handoffInputFilter' | 'context'>;

export interface HandoffsInput {
  /** `model` (named in settings, an agent's own does not apply) and how MCP tools are deferred. */
  settings: DeferSettings & Pick<BeansConfig, 'model'>;
  options: HandoffOptions;
  agent: SettledAgent;
  subagents: readonly SubagentDefinition[];
  tools: SessionTools;
  permissions: Pick<PermissionChain, 'isRemoved'>;
  prompts: Pick<SystemPrompts, 'systemPromptFor'>;
  /** Its MCP tools are deferred for the agent taking over as for the first one (named with their servers' descriptions). */
  mcp: McpServerSet | undefined;
  live: Live;
}

export type Handoffs = ReturnType<typeof createSessionHandoffs> & {
  /** A resumed conversation comes back to the agent that held it; resolves with a warning when it could not. */
  restoreAgent(target: ChatSession): Promise<string[]>;
};

/**
 * Part: the conversation may move to another agent (the handoff tool, `match:` routing, /agent).
 * Adds the `handoff` tool to the first agent's tools when it may hand off.
 */
export function createHandoffs(input: HandoffsInput): Handoffs {
  const { settings, options, agent, tools, live } = input;
  const handoffs = createSessionHandoffs({
    agents: input.subagents,
    profile: agent.profile,
    available: tools.available,
    keptTools: tools.keptToolNames,
    offered: !input.permissions.isRemoved(HANDOFF_TOOL_NAME),
    systemPromptFor: async (target, instructions, agentTools) => {
      const listing = deferChildTools(agentTools, { settings, agent, mcp: input.mcp });
      return (await input.prompts.systemPromptFor(instructions, target, agentTools)).text + listing;
    },
    modelFor: (agentModel) =>
      agentModel && agentModel !== 'inherit' && !options.model && !settings.model ? resolveModelAlias(agent.providerId, agentModel, agent.model) : agent.model,
    session: () => live.session,
    recordAgent: (target, name) => live.logs.get(target)?.recordMeta({ kind: 'agent', agent: name }),
    beforeApply: programHandoffHooks(options),
  });
  handoffs.withHandoffTool(tools.tools);
  const restoreAgent = async (target: ChatSession): Promise<string[]> => {
    const name = live.logs.get(target)?.restoredAgent;
    if (!name || name === handoffs.controller.active.name) return [];
    return handoffs.handoff(name, 'the session was resumed', 'command').then(
      () => [],
      (error: Error) => [`Could not return to the ${name} agent: ${error.message}`],
    );
  };
  return { ...handoffs, restoreAgent };
}

/**
 * The program's `onHandoff` (it may refuse the handoff by throwing: the model is told why) and its
 * `handoffInputFilter` (the history the new agent reads from now on), before anything changes.
 */
function programHandoffHooks(options: HandoffOptions): ((handoff: HandoffInfo, session: ChatSession) => Promise<void>) | undefined {
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
