import type { AgentEvent } from '../agent/types.js';
import type { PluginCatalog } from '../plugins/index.js';
import type { ShellSandbox } from '../sandbox/index.js';
import { createSubagentRunner, createTaskTool, type RunSubagent, type SubagentDefinition } from '../subagents/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import type { MemoryStore } from '../memory/memory-store.js';
import type { EditorFiles } from '../tools/editor-files.js';
import type { AnyTool } from '../tools/tool.js';
import { deferChildTools } from './defer-tools.js';
import { autoCompaction } from './auto-compact.js';
import type { BackgroundShells } from './background-shells.js';
import type { RuntimeBase } from './base.js';
import type { Compaction } from './compaction-hooks.js';
import type { ConversationLogs } from './conversation-logs.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { SessionHooks } from './session-hooks.js';
import type { SessionStorage } from './session-storage.js';
import type { SettledAgent } from './settle-agent.js';
import type { SystemPrompts } from './system-prompt.js';

export interface SessionSubagentsInput {
  base: RuntimeBase;
  agent: SettledAgent;
  catalog: PluginCatalog;
  subagents: readonly SubagentDefinition[];
  prompts: SystemPrompts;
  hooks: SessionHooks;
  permissions: PermissionChain;
  storage: SessionStorage;
  sandbox: ShellSandbox | undefined;
  logs: ConversationLogs;
  live: Live;
  /** Children read and write through the editor too (`beans acp`). */
  editorFiles?: EditorFiles;
  /** A program's memory store: children's memory tool saves there too. */
  memory?: MemoryStore;
  /** The context-window look-up: each child compacts its own conversation against its model's window. */
  compaction: Pick<Compaction, 'contextWindowOf'>;
  /** The session's background commands, which children start and read too. */
  background: Pick<BackgroundShells, 'tasks'>;
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

/** Part 10: children borrow the live conversation's model, tools and permission check. */
export function createSessionSubagents(input: SessionSubagentsInput): SessionSubagents {
  const { base, agent, hooks, permissions, storage, logs, live } = input;
  const values = base.config.values;
  const listeners = new Set<SubagentListener>();
  const run = createSubagentRunner({
    client: agent.client,
    provider: agent.providerId,
    model: () => live.session.model,
    workspace: base.workspace,
    tools: () => live.session.tools,
    catalog: input.catalog,
    contextFiles: () => input.prompts.contextFiles,
    beforeToolCall: async (context, signal) => permissions.checkOf(live.session)?.(context, signal) ?? { block: true, reason: 'The session has ended.' },
    afterToolCall: async (context, signal) => hooks.afterToolCall?.(context, signal),
    // A child's background commands are the session's: listed, read and stopped like the parent's, killed at close.
    toolContext: () => ({
      env: storage.toolEnv,
      readDenied: permissions.readDenied,
      sandbox: input.sandbox,
      editorFiles: input.editorFiles,
      backgroundTasks: input.background.tasks,
      memory: input.memory,
    }),
    maxTurns: values.agents.maxTurns,
    // A child's own conversation, compacted like the parent's (no PreCompact/SessionStart hooks: those are the session's).
    compaction: (child) =>
      autoCompaction(
        child,
        { threshold: values.compaction.threshold, contextWindow: values.compaction.contextWindow, enabled: values.compaction.enabled },
        input.compaction.contextWindowOf,
      ),
    record: (link, message) => logs.get(live.session)?.recordSubagent(link.toolCallId, link.agent, message),
    budgetLeftUsd: () =>
      values.maxBudgetUsd === undefined
        ? undefined
        : Math.max(0, values.maxBudgetUsd - (live.session.usage.costUsd - (logs.get(live.session)?.runStartCostUsd ?? 0))),
    onEvent: (child, event) => listeners.forEach((listener) => listener(child, event)),
    deferTools: (tools) => deferChildTools(tools, { base, agent, mcp: input.mcp }),
    onChildStop: async ({ link, lastMessage, stopHookActive }, signal) => {
      if (!hooks.runner.has('SubagentStop')) return undefined;
      // The child's messages are in the parent's session file, linked to its task call.
      const agentInfo = { id: link.toolCallId, type: link.agent, transcriptPath: storage.store ? storage.store.pathOf(live.session.id) : '', lastMessage };
      const outcome = await hooks.runner.subagentStop({ stopHookActive, agent: agentInfo }, signal);
      live.notices(outcome.userMessages);
      return outcome.continueWith;
    },
  });
  const taskTool = createTaskTool({ agents: input.subagents, run, maxParallel: values.agents.maxParallel });
  return { run, taskTool, listeners };
}
