import { ChatSession, type ChatSessionOptions } from '../agent/chat-session.js';
import type { AfterToolCall, BeforeToolCall } from '../agent/tool-hooks.js';
import type { AgentEvent, AgentMessage } from '../agent/types.js';
import { resolveModelAlias, type LLMClient } from '../llm/index.js';
import { buildSystemPrompt, type ContextFile } from '../prompt/index.js';
import { equipOwnSkills, toolsWithOwnSkills, withPreloadedSkills } from '../plugins/agent-skills.js';
import type { PluginCatalog } from '../plugins/types.js';
import { TOOL_SEARCH } from '../tools/deferred-tools.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/tool.js';
import type { Workspace } from '../workspace/workspace.js';
import type { SubagentDefinition } from './agents.js';
import { TASK_TOOL_NAME, type RunSubagent } from './task-tool.js';
import { HANDOFF_TOOL_NAME } from './handoff.js';

const DEFAULT_CHILD_MAX_TURNS = 50;

/** What a child borrows from its parent session. */
export interface ChildSessionParent {
  /** SubagentStop hooks: returns an instruction when a hook refuses to let the child stop. */
  onChildStop?: (stop: { link: SubagentLink; lastMessage: string; stopHookActive: boolean }, signal: AbortSignal) => Promise<string | undefined>;
  client: LLMClient;
  provider: string;
  /** The parent's model at the time of the call (a child with `model: inherit` uses it). */
  model: () => string;
  workspace: Workspace;
  /** The parent's tools; the child gets them minus `task` (no recursion), cut to its `tools:` list. */
  tools: () => ToolRegistry;
  /** The parent's plugins: a child loads its own skills, and preloads skills, through them. */
  catalog?: PluginCatalog;
  /** Read when a child starts (the parent may finish loading them after building its tools). */
  contextFiles: () => ContextFile[];
  /** The parent's permission check and hooks: the same mode, rules and asker. */
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  toolContext?: () => Partial<Omit<ToolContext, 'signal' | 'onUpdate' | 'workspace' | 'state'>>;
  /** Setting `agents.maxTurns`. */
  maxTurns?: number;
  /** What is left of the parent run's `--max-budget-usd` when a child starts: a child may not spend past it. */
  budgetLeftUsd?: () => number | undefined;
  /** Each child's messages as they are appended, linked to the task call (the session log). */
  record?: (link: SubagentLink, message: AgentMessage) => void;
  /**
   * Automatic compaction for a child's own conversation (its own window, its own summary failures),
   * made for each child; without it a long child run is never compacted.
   */
  compaction?: (child: () => ChatSession) => ChatSessionOptions['transformContext'];
  /**
   * Defers the child's MCP tools when their schemas cost too much (its own tool_search and loads);
   * returns what its system prompt adds ('' when nothing is deferred).
   */
  deferTools?: (tools: ToolRegistry) => string;
  /** Every event of every child, with the definition it runs (workflows follow their `call` steps by it). */
  onEvent?: (agent: SubagentDefinition, event: AgentEvent) => void;
}

/** Which task call a child's transcript belongs to. */
interface SubagentLink {
  toolCallId: string;
  agent: string;
}

/** Runs each delegated job in a fresh conversation of its own, built from the parent's parts. */
export function createSubagentRunner(parent: ChildSessionParent): RunSubagent {
  return async (agent, prompt, context) => {
    const parentModel = parent.model();
    const model = agent.model && agent.model !== 'inherit' ? resolveModelAlias(parent.provider, agent.model, parentModel) : parentModel;
    const offered = parent.tools();
    // Children never delegate or hand off themselves: no recursion, and the parent's conversation stays put.
    // tool_search belongs to the registry that defers: a child defers its own tools (deferTools).
    const allowed = (toolsWithOwnSkills(agent.tools, agent.skills) ?? offered.names()).filter(
      (name) => name !== TASK_TOOL_NAME && name !== HANDOFF_TOOL_NAME && name !== TOOL_SEARCH,
    );
    const tools = offered.only(allowed);
    const deferredListing = parent.deferTools?.(tools) ?? '';
    // Its own skills are seen by it alone: its load_skill looks there first, then in the plugins.
    const skills = parent.catalog ? equipOwnSkills(tools, parent.catalog, agent.skills) : undefined;
    const instructions = skills ? await withPreloadedSkills(await agent.prompt(), agent.preloadSkills, skills) : await agent.prompt();
    const transformContext = parent.compaction?.(() => child);
    const child: ChatSession = new ChatSession({
      client: parent.client,
      provider: parent.provider,
      model,
      systemPrompt:
        buildSystemPrompt({
          profile: { systemPrompt: instructions },
          contextFiles: parent.contextFiles(),
          skills: tools.get('load_skill') ? (agent.skills ?? []) : [],
          workspace: parent.workspace,
        }) + deferredListing,
      tools,
      workspace: parent.workspace,
      beforeToolCall: parent.beforeToolCall,
      afterToolCall: parent.afterToolCall,
      toolContext: parent.toolContext?.(),
      maxTurns: parent.maxTurns ?? DEFAULT_CHILD_MAX_TURNS,
      maxBudgetUsd: parent.budgetLeftUsd?.(),
      ...(transformContext ? { transformContext } : {}),
    });
    // Every event of the child reaches the parent's run, tagged with the task call that runs it.
    const link: SubagentLink = { toolCallId: context.callId ?? '', agent: agent.name };
    const stop = child.subscribe((event) => {
      // A child started outside a task call (a workflow step) has no call to be linked to.
      if (event.type === 'message_end' && context.callId !== undefined) parent.record?.(link, event.message);
      parent.onEvent?.(agent, event);
      const forwarded: AgentEvent = { type: 'subagent', toolCallId: link.toolCallId, agent: agent.name, event };
      context.emit?.(forwarded);
    });
    try {
      let result = await child.prompt(prompt, context.signal);
      // SubagentStop hooks may send the child on, like Stop hooks do for the main agent.
      for (let round = 0; round < 5 && result.stopReason === 'completed' && parent.onChildStop; round++) {
        const continueWith = await parent.onChildStop({ link, lastMessage: result.finalText, stopHookActive: round > 0 }, context.signal);
        if (!continueWith) break;
        result = await child.prompt(continueWith, context.signal);
      }
      return {
        finalText: result.finalText,
        turns: result.turns,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        stopReason: result.stopReason,
        ...(result.failure ? { error: result.failure.message } : {}),
      };
    } finally {
      stop();
      child.close();
    }
  };
}
