import type { AgentEvent } from '../agent/types.js';
import type { BeansConfig } from '../config/index.js';
import { createSubagentRunner, createTaskTool, type RunSubagent, type SubagentDefinition } from '../subagents/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import type { AnyTool } from '../tools/tool.js';
import type { Workspace } from '../workspace/workspace.js';
import { deferChildTools, type DeferSettings } from './defer-tools.js';
import { autoCompaction } from './auto-compact.js';
import type { CatalogAndSubagents } from './catalog-subagents.js';
import type { Compaction } from './compaction-hooks.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { SessionHooks } from './session-hooks.js';
import type { SessionStorage } from './session-storage.js';
import type { SettledAgent } from './settle-agent.js';
import type { SystemPrompts } from './system-prompt.js';
import type { SessionToolContext } from './tool-context.js';

export interface SessionSubagentsInput {
  /** `agents.*` (turns, parallel children), the run's budget, compaction, how MCP tools are deferred. */
  settings: DeferSettings & Pick<BeansConfig, 'agents' | 'maxBudgetUsd'>;
  workspace: Workspace;
  agent: Pick<SettledAgent, 'client' | 'providerId' | 'model'>;
  /** The plugins (a child's skills) and the agents the task tool offers. */
  plugins: CatalogAndSubagents;
  prompts: Pick<SystemPrompts, 'contextFiles'>;
  hooks: Pick<SessionHooks, 'runner' | 'afterToolCall'>;
  permissions: Pick<PermissionChain, 'checkOf'>;
  /** A child's messages are in the parent's session file (SubagentStop's `transcript_path`). */
  storage: Pick<SessionStorage, 'transcriptPathOf'>;
  /** Children run their tools as the session does: the same background commands, editor, sandbox and memory. */
  toolContext: SessionToolContext;
  live: Live;
  /** The context-window look-up: each child compacts its own conversation against its model's window. */
  compaction: Pick<Compaction, 'contextWindowOf'>;
  /** The servers whose descriptions a child's deferred-tools listing names. */
  mcp: McpServerSet | undefined;
}

type SubagentListener = (agent: SubagentDefinition, event: AgentEvent) => void;

export interface SessionSubagents {
  run: RunSubagent;
  /** The `task` tool, offered to the session's agents. */
  taskTool: AnyTool;
  /** Every event of every child. */
  listeners: Set<SubagentListener>;
}

/** Part: children borrow the live conversation's model, tools and permission check. */
export function createSessionSubagents(input: SessionSubagentsInput): SessionSubagents {
  const { settings: values, agent, hooks, permissions, storage, live } = input;
  const listeners = new Set<SubagentListener>();
  const run = createSubagentRunner({
    client: agent.client,
    provider: agent.providerId,
    model: () => live.session.model,
    workspace: input.workspace,
    tools: () => live.session.tools,
    catalog: input.plugins.catalog,
    contextFiles: () => input.prompts.contextFiles,
    beforeToolCall: async (context, signal) => permissions.checkOf(live.session)?.(context, signal) ?? { block: true, reason: 'The session has ended.' },
    afterToolCall: async (context, signal) => hooks.afterToolCall?.(context, signal),
    // A child's background commands are the session's: listed, read and stopped like the parent's, killed at close.
    toolContext: () => input.toolContext,
    maxTurns: values.agents.maxTurns,
    // A child's own conversation, compacted like the parent's (no PreCompact/SessionStart hooks: those are the session's).
    compaction: (child) =>
      autoCompaction(
        child,
        { threshold: values.compaction.threshold, contextWindow: values.compaction.contextWindow, enabled: values.compaction.enabled },
        input.compaction.contextWindowOf,
      ),
    record: (link, message) => live.log?.recordSubagent(link.toolCallId, link.agent, message),
    budgetLeftUsd: () =>
      values.maxBudgetUsd === undefined ? undefined : Math.max(0, values.maxBudgetUsd - (live.session.usage.costUsd - (live.log?.runStartCostUsd ?? 0))),
    onEvent: (child, event) => listeners.forEach((listener) => listener(child, event)),
    deferTools: (tools) => deferChildTools(tools, { settings: values, agent, mcp: input.mcp }),
    onChildStop: async ({ link, lastMessage, stopHookActive }, signal) => {
      if (!hooks.runner.has('SubagentStop')) return undefined;
      // The child's messages are in the parent's session file, linked to its task call.
      const agentInfo = { id: link.toolCallId, type: link.agent, transcriptPath: storage.transcriptPathOf(live.session.id), lastMessage };
      const outcome = await hooks.runner.subagentStop({ stopHookActive, agent: agentInfo }, signal);
      live.notices(outcome.userMessages);
      return outcome.continueWith;
    },
  });
  const taskTool = createTaskTool({ agents: input.plugins.subagents, run, maxParallel: values.agents.maxParallel });
  return { run, taskTool, listeners };
}
