import type { ChatSession } from '../agent/chat-session.js';
import { UsageError } from '../errors.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import type { PermissionMode } from '../permissions/types.js';
import { HandoffError } from '../subagents/index.js';
import { shellTool } from '../tools/shell.js';
import type { AgentSession } from './agent-session-types.js';
import type { RuntimeBase } from './base.js';
import type { CatalogAndSubagents } from './catalog-subagents.js';
import { attachFileReferences } from './attach-files.js';
import { memoryFiles, saveNote } from '../memory/index.js';
import { sessionCommands } from './session-commands.js';
import { createSessionModel } from './session-model.js';
import { createSessionListings } from './session-listings.js';
import { createSubmit } from './submit.js';
import { createCommandPrompt } from './command-prompt.js';
import type { Compaction } from './compaction-hooks.js';
import { compactSession } from './compact.js';
import type { ConversationFactory } from './conversation.js';
import type { Handoffs } from './handoffs.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { SessionCheckpoints } from './session-checkpoints.js';
import type { SessionHooks } from './session-hooks.js';
import type { SessionStorage } from './session-storage.js';
import type { SessionSubagents } from './session-subagents.js';
import type { SettledAgent } from './settle-agent.js';
import { describeSession } from './session-info.js';
import { createMcpControl } from './mcp-control.js';
import { createSwitchConversation } from './switch-conversation.js';
import type { WorkspaceTrust } from './workspace-trust.js';
import type { SessionToolContext } from './tool-context.js';
import type { TurnRunner } from './turn-runner.js';
import type { Telemetry } from '../telemetry/index.js';
import type { BackgroundShells } from './background-shells.js';
import type { SessionLsp } from './session-lsp.js';
import type { SessionSchedules } from './session-schedules.js';

/** Beans' permission modes, for reading one back from a session file. */
const MODES: readonly PermissionMode[] = ['default', 'auto-edit', 'plan', 'yolo'];

/** Everything the parts built, by part: what the returned AgentSession is made of. */
export interface SessionParts {
  base: RuntimeBase;
  warnings: string[];
  live: Live;
  trust: WorkspaceTrust;
  toolContext: SessionToolContext;
  plugins: CatalogAndSubagents;
  mcp: McpServerSet | undefined;
  agent: SettledAgent;
  storage: SessionStorage;
  hooks: SessionHooks;
  permissions: PermissionChain;
  children: SessionSubagents;
  handoffs: Handoffs;
  compaction: Compaction;
  telemetry: Telemetry | undefined;
  conversation: ConversationFactory;
  runTurn: TurnRunner;
  checkpoints: SessionCheckpoints;
  background: BackgroundShells;
  lsp: SessionLsp;
  scheduled: SessionSchedules;
}

/** Part: the AgentSession front ends hold, its methods reading the live parts when called. */
export function assembleAgentSession(parts: SessionParts): AgentSession {
  const { base, live, mcp, agent: settled, storage, hooks, permissions, children, handoffs, compaction } = parts;
  const { catalog, subagents } = parts.plugins;
  const { sandbox } = parts.toolContext;
  const workspaceTrusted = parts.trust.trusted;
  const preparePrompt = createCommandPrompt({ base, catalog, mcp, providerId: settled.providerId, workspaceTrusted, sandbox, storage, permissions, live });
  const listeners = new Set<(session: ChatSession) => void>();
  const memoryLocations = { workspaceRoot: base.workspace.root, configDir: base.configDir };
  const agent: AgentSession = {
    ...createSessionModel({ agent: settled, compaction, live }),
    ...createSessionListings({
      base,
      catalog,
      hookSet: hooks.set,
      store: storage.store,
      activeAgent: () => handoffs.controller.active.name,
      openConversation: (id) => agent.newConversation(id),
    }),
    base,
    config: base.config,
    workspace: base.workspace,
    catalog,
    profile: settled.profile,
    providerId: settled.providerId,
    client: settled.client,
    modelNote: settled.modelNote,
    store: storage.store,
    warnings: parts.warnings,
    hookSet: hooks.set,
    hooks: hooks.runner,
    guardrails: settled.guardrails,
    get session() {
      return live.session;
    },
    onSessionChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get permissionMode() {
      return live.permissionMode;
    },
    set permissionMode(mode: PermissionMode) {
      live.permissionMode = mode;
      // Kept in the session file: a front end that restores it on load (beans acp) reads the last one.
      live.log?.recordMeta({ kind: 'mode', mode });
    },
    storedPermissionMode() {
      const mode = live.log?.restoredMode;
      return MODES.find((known) => known === mode);
    },
    workspaceTrusted,
    runUserShell(command, signal) {
      return shellTool.execute(
        { command },
        { signal, workspace: base.workspace, state: live.session.toolState, env: storage.toolEnv, sandbox, outputDir: storage.outputDirOf(live.session.id) },
      );
    },
    permissionRules: () => permissions.rules(live.session),
    removeApprovals: (rule) => permissions.removeApprovals(live.session, rule),
    setAsker(next) {
      live.asker = next;
    },
    preparePrompt,
    submit: submitPath(parts, preparePrompt, () => agent),
    schedules: parts.scheduled.schedules,
    goals: parts.scheduled.goals,
    get commands() {
      return commands;
    },
    saveMemoryNote: (target, text) => saveNote(target, text, memoryLocations),
    memoryFiles: () => memoryFiles(memoryLocations),
    compact: (signal, focus) => compactLive(compaction, live, signal, focus),
    newConversation: createSwitchConversation({ conversation: parts.conversation, handoffs, hooks, live, listeners }),
    get activeAgent() {
      return handoffs.controller.active.name;
    },
    switchAgent: (name) => switchAgentTo(handoffs, name),
    subagentTranscript: (toolCallId) => live.log?.subagents.get(toolCallId),
    subagents,
    runSubagent: (definition, prompt, signal) => children.run(definition, prompt, { signal, workspace: base.workspace, state: live.session.toolState }),
    onSubagentEvent(listener) {
      children.listeners.add(listener);
      return () => children.listeners.delete(listener);
    },
    async notify(message) {
      if (hooks.runner.has('Notification')) await live.notify(hooks.runner.notification(message));
    },
    async end(reason = 'other') {
      await live.notify(hooks.runner.sessionEnd(reason));
    },
    ...describeSession(parts),
    ...createMcpControl(parts),
    checkpoints: parts.checkpoints,
    backgroundTasks: parts.background.tasks,
    lspServers: () => parts.lsp.list(),
    ...statusLineOf(base, parts.trust),
    transcriptPath: () => storage.transcriptPathOf(live.session.id),
    renameSession: (title) => live.log?.recordMeta({ kind: 'title', title }),
    close: async () => {
      // Nothing a session started outlives it, unless the user asked (`--keep-tasks`).
      parts.scheduled.close();
      await Promise.all([parts.background.close(), parts.lsp.close()]);
      live.session.close();
      void sandbox?.dispose();
      void mcp?.close();
      await parts.telemetry?.shutdown();
    },
  };
  const commands = [...sessionCommands(agent), ...parts.scheduled.attach((input) => agent.submit(input), listeners)];
  return agent;
}

/** `/compact`: the live conversation summarised, between the PreCompact and PostCompact hooks. */
async function compactLive(compaction: Compaction, live: Live, signal: AbortSignal, focus: string | undefined): Promise<string> {
  await compaction.before(signal, 'manual', focus);
  const window = await compaction.contextWindowOf(live.session.model, signal).catch(() => undefined);
  const line = await compactSession(live.session, signal, focus, window);
  await compaction.after(signal);
  return line;
}

/** The user's choice of agent (`/agent`): a name the handoffs do not know is a usage error. */
async function switchAgentTo(handoffs: Handoffs, name: string): Promise<void> {
  try {
    await handoffs.handoff(name, 'chosen by the user', 'command');
  } catch (error) {
    if (error instanceof HandoffError) throw new UsageError(error.message);
    throw error;
  }
}

/** The session's one submit path over its parts (the agent is read when input arrives, once it exists). */
function submitPath(parts: SessionParts, preparePrompt: AgentSession['preparePrompt'], agent: () => AgentSession): AgentSession['submit'] {
  return createSubmit({
    live: parts.live,
    preparePrompt,
    attachFiles: (message) => attachFileReferences(message, parts.base.workspace.root, { readDenied: parts.permissions.readDenied }),
    runTurn: parts.runTurn,
    runUserShell: (command, signal) => agent().runUserShell(command, signal),
    commands: () => agent().commands,
    hooks: parts.hooks.runner,
    guardrails: parts.agent.guardrails,
  });
}

function statusLineOf(base: RuntimeBase, trust: Pick<WorkspaceTrust, 'skipStatusLine'>): Pick<AgentSession, 'statusLine'> {
  const setting = base.config.values.statusLine;
  return setting && !trust.skipStatusLine ? { statusLine: { command: setting.command, padding: setting.padding ?? 0 } } : {};
}
