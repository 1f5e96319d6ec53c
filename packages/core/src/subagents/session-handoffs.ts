import type { ChatSession } from '../agent/chat-session.js';
import { toolsWithOwnSkills } from '../plugins/agent-skills.js';
import type { Profile } from '../plugins/profile.js';
import { ToolRegistry } from '../tools/registry.js';
import { GENERAL_PURPOSE_PROMPT, type SubagentDefinition } from './agents.js';
import { createHandoffTool, HANDOFF_TOOL_NAME, HandoffController, type HandoffInfo, type HandoffTrigger } from './handoff.js';

export interface SessionHandoffsOptions {
  /** The session's subagents; every one but `general-purpose` can take the conversation over. */
  agents: readonly SubagentDefinition[];
  /** The session's own agent, where the conversation starts. */
  profile: Profile;
  /** Every tool an agent may be given (deny rules applied), and the ones every agent keeps (SDK, MCP). */
  available: ToolRegistry;
  keptTools: () => string[];
  /** False when a deny rule names the `handoff` tool: the model never sees it (routing and /agent still work). */
  offered: boolean;
  /** The whole system prompt for an agent's instructions and tools (context files, its skills, appendix); may give its tools its own load_skill. */
  systemPromptFor: (agent: SubagentDefinition, instructions: string, tools: ToolRegistry) => Promise<string>;
  /** The model for an agent's `model:` (missing or `inherit`: the session's). */
  modelFor: (agentModel: string | undefined) => string;
  session: () => ChatSession;
  /** After each handoff: the session log records it, so a resume comes back to the same agent. */
  recordAgent: (session: ChatSession, agent: string) => void;
  /** Before a handoff changes anything (the program's onHandoff and input filter); a throw refuses it. */
  beforeApply?: (handoff: HandoffInfo, session: ChatSession) => Promise<void>;
}

/**
 * Handoffs for one session: the controller, and what a handoff changes in the live conversation
 * (system prompt, tools, model; the history stays). The `handoff` tool joins an agent's tools when
 * it has someone to hand off to.
 */
export function createSessionHandoffs(options: SessionHandoffsOptions) {
  const { profile } = options;
  const controller = new HandoffController({
    agents: options.agents.filter((agent) => agent.name !== 'general-purpose'),
    initial: {
      name: profile.name,
      ...(profile.plugin ? { qualifiedName: `${profile.plugin}:${profile.name}` } : {}),
      ...(profile.handoffs ? { handoffs: profile.handoffs } : {}),
      ...(profile.match ? { match: profile.match } : {}),
    },
    apply: async (agent, _controller, handoff) => {
      const session = options.session();
      await options.beforeApply?.(handoff, session);
      const instructions = await agent.prompt();
      const named = toolsWithOwnSkills(agent.tools, agent.skills);
      const tools = named ? options.available.only([...named, ...options.keptTools()]) : new ToolRegistry(options.available.list());
      withHandoffTool(tools, agent);
      session.setProfile(await options.systemPromptFor(agent, instructions || GENERAL_PURPOSE_PROMPT, tools), tools);
      session.model = options.modelFor(agent.model);
      options.recordAgent(session, agent.name);
    },
    announce: (handoff) => {
      const session = options.session();
      if (handoff.trigger !== 'match') return session.emit({ type: 'handoff', ...handoff });
      // Routing happens before the message joins the conversation; it is told after it, where it reads right.
      const stop = session.subscribe((event) => {
        if (event.type !== 'message_end' || event.message.role !== 'user') return;
        stop();
        session.emit({ type: 'handoff', ...handoff });
      });
    },
  });
  // An agent with its own `tools:` list gets handoff only when it asks for it (`handoffs:`, or handoff
  // in the list): a Claude Code agent's tool list stays exactly what it says.
  const withHandoffTool = (tools: ToolRegistry, agent: Pick<SubagentDefinition, 'tools' | 'handoffs'> = profile): ToolRegistry => {
    const wanted = !agent.tools || agent.handoffs !== undefined || agent.tools.includes(HANDOFF_TOOL_NAME);
    if (options.offered && wanted && controller.targets().length > 0) tools.register(createHandoffTool(controller));
    else tools.unregister(HANDOFF_TOOL_NAME);
    return tools;
  };
  return {
    controller,
    /** Adds the `handoff` tool to the session's first tools, when its agent may and wants to hand off. */
    withHandoffTool,
    handoff: (name: string, reason: string, trigger: HandoffTrigger) => controller.handoff(name, reason, trigger),
  };
}
