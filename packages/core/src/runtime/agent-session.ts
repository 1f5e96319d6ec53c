import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ChatSession, userMessage } from '../agent/chat-session.js';
import { composeAfterToolCall, composeBeforeToolCall, permissionHook, type AfterToolCall, type BeforeToolCall } from '../agent/tool-hooks.js';
import type { AgentMessage } from '../agent/types.js';
import { formatConfigSource, type LoadedConfig } from '../config/index.js';
import { isInside } from '../workspace/paths.js';
import { modelLimits, providerKeyVariables, resolveModelAlias, type LLMClient } from '../llm/index.js';
import { UsageError } from '../errors.js';
import { guardrailToolHook, type Guardrails } from '../guardrails/index.js';
import { isTrusted } from '../config/trust.js';
import { createHookRunner, hookToolCallbacks, loadWorkspaceHooks, type HookRunner, type HookSet } from '../hooks/index.js';
import { createAuthorize } from '../permissions/authorize.js';
import { createShellSandbox, sandboxReadDenials } from '../sandbox/index.js';
import { parseToolRules, ruleCoversTool, type ToolRule } from '../permissions/rules.js';
import { createReadDenied } from '../permissions/read-deny.js';
import type { AskUser, PermissionMode } from '../permissions/types.js';
import { commandRulesAllow, createLoadSkillTool, describeProfile, type PluginCatalog, type Profile } from '../plugins/index.js';
import { equipOwnSkills, toolsWithOwnSkills, withPreloadedSkills } from '../plugins/agent-skills.js';
import { shellTool } from '../tools/shell.js';
import { createSessionHandoffs, createSubagentRunner, createTaskTool, HANDOFF_TOOL_NAME, HandoffError, parseInlineAgents, subagentList, type SubagentDefinition, type SubagentOutcome } from '../subagents/index.js';
import type { AgentEvent } from '../agent/types.js';
import { contentText } from '../tools/tool.js';
import { buildSystemPrompt, loadContextFiles } from '../prompt/index.js';
import { repairHistory, type SessionMetaInput, type SessionStore, type SessionWriter, type SubagentTranscript } from '../session/index.js';
import { builtinTools } from '../tools/builtin.js';
import { toolEnvironment } from '../tools/tool-env.js';
import { removeStaleTempFiles, workspaceTempDir } from '../tools/file-io.js';
import { ToolRegistry } from '../tools/registry.js';
import type { McpServerStatus } from '../mcp/mcp-servers.js';
import { startSessionMcp } from '../mcp/session-mcp.js';
import type { AnyTool, ToolResult } from '../tools/tool.js';
import type { Workspace } from '../workspace/workspace.js';
import { builtinPluginsDir, claudeHomeDir, loadCatalog, loadRuntimeBase, sessionStore, type RuntimeBase } from './base.js';
import { autoCompaction } from './auto-compact.js';
import { claudeToolName } from '../claude/vocabulary.js';
import { refusedTurn, runTurn, type TurnOutcome } from './run-turn.js';
import { gateFinalAnswer } from '../hooks/index.js';
import type { UserMessage } from '../agent/types.js';
import { compactSession } from './compact.js';
import { isDontAsk, parsePermissionMode, sdkPermissionMode } from './permission-mode.js';
import { preparePrompt, type Prepared } from './prepare-prompt.js';
import { settleAgent } from './settle-agent.js';
import type { SessionInitInfo } from './sdk-messages.js';
import type { AgentSessionOptions, CanUseTool } from './session-options.js';
import { VERSION } from '../version.js';

/**
 * Everything one session of Beans needs, built in one place: configuration, workspace, plugins, the
 * profile, provider and model, tools, the permission policy, the system prompt and the session log.
 * The one-shot runner, the chat UI, `query()`, the SDK protocol and subagents are thin clients of it.
 */
export interface AgentSession {
  readonly base: RuntimeBase;
  readonly config: LoadedConfig;
  readonly workspace: Workspace;
  readonly catalog: PluginCatalog;
  readonly profile: Profile;
  readonly providerId: string;
  readonly client: LLMClient;
  /** A line for people when the provider picked the model itself. */
  readonly modelNote?: string;
  /** Undefined when sessions are not persisted. */
  readonly store?: SessionStore;
  /** Warnings found while building the session (settings, plugins), for the front end to show. */
  readonly warnings: string[];
  /** Configured command hooks (settings, plugins) and their runner, for the events the loop does not run itself. */
  readonly hookSet: HookSet;
  readonly hooks: HookRunner;
  /** Guardrails from settings and the profile; check prompts and answers with checkInput/checkOutput. */
  readonly guardrails: Guardrails;
  /** The live conversation; replaced by `newConversation` (/clear, /resume). */
  readonly session: ChatSession;
  onSessionChange(listener: (session: ChatSession) => void): () => void;
  permissionMode: PermissionMode;
  /** Whether the workspace's own settings, hooks and commands are trusted (`beans trust`, --trust). */
  readonly workspaceTrusted: boolean;
  /** `!command` in chat: runs a command the user typed, as the shell tool would, without asking (the user typed it). */
  runUserShell(command: string, signal: AbortSignal): Promise<ToolResult>;
  /** `/permissions`: the allow and deny rules in force with where each came from, and the live conversation's "always" answers. */
  permissionRules(): PermissionRulesInfo;
  /** Forgets "always" answers of the live conversation: the one written as `rule`, or all of them. Returns how many went. */
  removeApprovals(rule?: string): number;
  /** The interactive front end's prompt; without one (and without canUseTool) calls that would ask are denied. */
  setAsker(asker: AskUser | undefined): void;
  /** Slash commands, skills and triggers turned into the messages of a run. */
  preparePrompt(text: string): Promise<Prepared>;
  /** Summarises the conversation so far into a compaction note; returns a line to show. */
  compact(signal: AbortSignal, focus?: string): Promise<string>;
  /** Replaces the live conversation with a fresh one, or with a stored one (`resumeId`). */
  newConversation(resumeId?: string, model?: string): Promise<ChatSession>;
  describeProfile(): string;
  /** What `system/init` reports: model, tools, agents, skills, commands, plugins, mode. */
  initInfo(): SessionInitInfo;
  /** The MCP servers of this session, with their status and tools (`/mcp`, `beans mcp list`, `system/init`). */
  mcpServers(): McpServerStatus[];
  /**
   * Starts the MCP servers whose tools were offered from memory (`mcpFromLastRun`); otherwise they
   * start when the model first answers. Chat calls it once its prompt is drawn.
   */
  startMcpServers(): void;
  /**
   * Runs one turn of the user's with everything around it: input guardrails and UserPromptSubmit
   * hooks, SessionStart context, Stop hooks, output guardrails. Front ends call this, not `session.prompt`.
   */
  runTurn(prompts: UserMessage[], signal?: AbortSignal): Promise<TurnOutcome>;
  /**
   * One message from a program (`query()`, the SDK protocol): slash commands, skills and MCP prompts
   * are expanded as if typed, its images and uuid are kept, then `runTurn`. A command that cannot
   * expand is a refused prompt, not a throw.
   */
  promptTurn(message: UserMessage, signal?: AbortSignal): Promise<TurnOutcome>;
  /** The agent holding the conversation: the profile's, or the one it was handed off to. */
  readonly activeAgent: string;
  /** `/agent <name>`: hands the conversation to that agent by hand (any agent; throws a UsageError naming the valid ones). */
  switchAgent(name: string): Promise<void>;
  /** The conversation of the subagent that the live conversation's task call `toolCallId` ran (also after a resume). */
  subagentTranscript(toolCallId: string): SubagentTranscript | undefined;
  /** Notification hooks, e.g. when the agent has been waiting for the person for a while. */
  notify(message: string): Promise<void>;
  /** The agents the `task` tool offers (`general-purpose`, inline, plugin agents). */
  readonly subagents: readonly SubagentDefinition[];
  /** Runs an agent as a child of this session, exactly as the `task` tool does (workflows' `call` steps). */
  runSubagent(agent: SubagentDefinition, prompt: string, signal: AbortSignal): Promise<SubagentOutcome>;
  /** Every event of every child; the definition object is the one passed to runSubagent. */
  onSubagentEvent(listener: (agent: SubagentDefinition, event: AgentEvent) => void): () => void;
  /** SessionEnd hooks (`other` by default, `prompt_input_exit` when the user leaves chat); call before close(). */
  end(reason?: 'clear' | 'logout' | 'prompt_input_exit' | 'other'): Promise<void>;
  /** Stops the run, releases the session log and terminates MCP servers. */
  close(): void;
}

export interface PermissionRulesInfo {
  allow: { rule: string; source: string }[];
  deny: { rule: string; source: string }[];
  /** Rules "always" answers added in this conversation, as written. */
  approved: string[];
}

/** Each rule of a concatenated list setting with the file (or flag) it came from. */
function rulesWithSources(config: LoadedConfig, key: string): { rule: string; source: string }[] {
  const entry = config.entries.find((candidate) => candidate.key === key);
  if (!entry || !Array.isArray(entry.value)) return [];
  return (entry.value as string[]).map((rule, index) => ({ rule, source: formatConfigSource(entry.itemSources?.[index] ?? entry.source) }));
}

export async function createAgentSession(options: AgentSessionOptions = {}): Promise<AgentSession> {
  // What was started before a failure (MCP server processes) must not outlive it.
  const started: (() => Promise<void>)[] = [];
  try {
    return await buildAgentSession(options, (stop) => started.push(stop));
  } catch (error) {
    await Promise.all(started.map((stop) => stop()));
    throw error;
  }
}

async function buildAgentSession(options: AgentSessionOptions, onFailure: (stop: () => Promise<void>) => void): Promise<AgentSession> {
  const base = await loadRuntimeBase({ cwd: options.cwd, env: options.env, flags: optionFlags(options), settingSources: options.settingSources, trusted: options.trustWorkspace || undefined });
  const values = base.config.values;
  const warnings = [...base.config.warnings];
  // One decision for everything a repository asks to run or loosen: its settings (above), its
  // .mcp.json, hooks and commands' allowed-tools. --trust, else the user's recorded answer.
  const workspaceTrusted = options.trustWorkspace === true || isTrusted(base.workspace.root, base.env);
  // --sandbox: shell commands run in an OS sandbox, or the run stops here, before any network
  // (SandboxUnavailableError, exit 3).
  const sandbox = values.sandbox.enabled
    ? await createShellSandbox({ workspaceRoot: base.workspace.root, allowedHosts: values.sandbox.allowedHosts, denyRead: sandboxReadDenials(parseToolRules(values.permissions.deny), base.workspace.root) })
    : undefined;
  const catalog = await loadCatalog(base, options.builtinPluginsDir);
  // Checked before anything else is built, so a bad --agents value is a usage error up front.
  const subagents = subagentList(catalog, options.agents === undefined ? {} : parseInlineAgents(options.agents));
  // MCP servers start here and get ready in their own processes while the client, the profile, its
  // guardrails and the model are settled.
  const mcpStarting = startSessionMcp(
    {
      workspaceRoot: base.workspace.root,
      cwd: base.workspace.cwd,
      env: base.env,
      pluginRoots: catalog.plugins.map((plugin) => plugin.root),
      configArguments: options.mcpConfig ?? [],
      strict: options.strictMcpConfig ?? false,
      ...(options.mcpServers ? { programServers: options.mcpServers } : {}),
      ...(values.mcpServers ? { settingsServers: values.mcpServers } : {}),
      ...(values.mcp.timeoutMs ? { timeoutMs: values.mcp.timeoutMs } : {}),
      projectTrusted: workspaceTrusted,
      fromLastRun: options.mcpFromLastRun ?? false,
    },
    warnings,
  );
  // Also marks a rejection as handled until `await mcpStarting` below reports it.
  const mcpSettled = mcpStarting.catch(() => undefined);
  onFailure(async () => (await mcpSettled)?.close());
  const { providerId, client, profile, guardrails, model, modelNote } = await settleAgent(base, catalog, options);
  const mcp = await mcpStarting;
  const subagentListeners = new Set<(agent: SubagentDefinition, event: AgentEvent) => void>();
  // Children borrow the live conversation's model, tools and permission check (filled in below).
  const runSubagent = createSubagentRunner({
    client,
    provider: providerId,
    model: () => session.model,
    workspace: base.workspace,
    tools: () => session.tools,
    catalog,
    contextFiles: () => contextFiles,
    beforeToolCall: async (context, signal) => checks.get(session)?.(context, signal) ?? { block: true, reason: 'The session has ended.' },
    afterToolCall: async (context, signal) => afterToolCall?.(context, signal),
    toolContext: () => ({ env: toolEnv, readDenied, sandbox }),
    maxTurns: values.agents.maxTurns,
    record: (link, message) => logs.get(session)?.recordSubagent(link.toolCallId, link.agent, message),
    budgetLeftUsd: () => (values.maxBudgetUsd === undefined ? undefined : Math.max(0, values.maxBudgetUsd - (session.usage.costUsd - (logs.get(session)?.runStartCostUsd ?? 0)))),
    onEvent: (agent, event) => subagentListeners.forEach((listener) => listener(agent, event)),
    onChildStop: async ({ link, lastMessage, stopHookActive }, signal) => {
      if (!hooks.has('SubagentStop')) return undefined;
      // The child's messages are in the parent's session file, linked to its task call.
      const agentInfo = { id: link.toolCallId, type: link.agent, transcriptPath: store ? store.pathOf(session.id) : '', lastMessage };
      const outcome = await hooks.subagentStop({ stopHookActive, agent: agentInfo }, signal);
      notices(outcome.userMessages);
      return outcome.continueWith;
    },
  });
  const taskTool = createTaskTool({ agents: subagents, run: runSubagent, maxParallel: values.agents.maxParallel });
  const extraTools = [...(options.tools ?? []), ...(mcp?.tools() ?? [])];

  const deny = parseToolRules(values.permissions.deny);
  // A bare tool name in the deny list removes the tool: the model never sees it.
  const removed = deny.filter((rule) => rule.pattern === undefined).map((rule) => rule.tool);
  const allTools: AnyTool[] = [...builtinTools({ webFetch: values.webFetch }), createLoadSkillTool(catalog), taskTool, ...extraTools];
  const available = new ToolRegistry(allTools.filter((tool) => !removed.some((ruleTool) => ruleCoversTool(ruleTool, tool.name))));
  const profileTools = toolsWithOwnSkills(profile.tools, profile.skills);
  let tools = profileTools ? available.only([...profileTools, ...extraTools.map((tool) => tool.name)]) : new ToolRegistry(available.list());

  // notifications/tools/list_changed: a server's new or changed tools join the live registry, and
  // the ones it no longer offers leave it.
  let mcpToolNames = new Set(mcp?.tools().map((tool) => tool.name));
  mcp?.onToolsChanged(() => {
    const current = mcp.tools();
    const names = new Set(current.map((tool) => tool.name));
    // The first agent's tools, every agent's, and those of the agent the conversation was handed to.
    for (const registry of new Set([tools, available, session.tools])) {
      for (const name of mcpToolNames) if (!names.has(name)) registry.unregister(name);
      for (const tool of current) if (!removed.some((ruleTool) => ruleCoversTool(ruleTool, tool.name))) registry.register(tool);
    }
    mcpToolNames = names;
  });

  let permissionMode = values.permissions.mode;
  let asker: AskUser | undefined;
  // Notification hooks: a permission question is waiting for the person.
  const ask = askFunction(
    {
      ...options,
      onAsk: (tool) => {
        options.onAsk?.(tool);
        if (hooks.has('Notification')) void hooks.notification(`Beans needs your permission to use ${claudeToolName(tool)}`).then((outcome) => notices(outcome.userMessages));
      },
    },
    () => asker,
  );
  const allow = parseToolRules(values.permissions.allow);
  const readDenied = createReadDenied(deny, base.workspace.root);
  // One policy per conversation: "always" answers must not outlive /clear or /resume.
  // The live conversation's check, shared by its subagents so an "always" answer holds for them too.
  const checks = new WeakMap<ChatSession, BeforeToolCall>();
  // What each conversation keeps beyond its messages: its subagents' transcripts (restored on resume),
  // the agent it was handed to, and how both reach its session file.
  const logs = new WeakMap<ChatSession, ConversationLog>();
  // Its "always" answers, listed and forgotten by /permissions.
  const approvals = new WeakMap<ChatSession, ToolRule[]>();
  const beforeToolCallFor = (approved: ToolRule[]): BeforeToolCall =>
    composeBeforeToolCall(
      options.beforeToolCall,
      commandHooks.beforeToolCall,
      permissionHook(createAuthorize({ mode: () => permissionMode, allow, deny, workspace: base.workspace, ask, sandboxed: sandbox !== undefined, approved })),
    );
  const hookSet = await loadWorkspaceHooks({ workspaceRoot: base.workspace.root, env: base.env, settingSources: options.settingSources, plugins: catalog.plugins, trusted: workspaceTrusted, builtinPluginsDir: options.builtinPluginsDir ?? builtinPluginsDir() });
  for (const problem of hookSet.problems) warnings.push(`${problem.path}: ${problem.message}`);
  if (hookSet.untrusted.length) warnings.push(`${hookSet.untrusted.length} hook(s) this repository brings (its settings or plugins) did not load because the workspace is not trusted.`);
  const hooks = createHookRunner({
    hooks: hookSet,
    sessionId: () => session.id,
    transcriptPath: () => (store ? store.pathOf(session.id) : ''),
    cwd: base.workspace.root,
    permissionMode: () => sdkPermissionMode(permissionMode),
    env: base.env,
  });
  const commandHooks = hookToolCallbacks(hooks, (message) => options.onHookMessage?.(message));
  // Redaction last, so nothing a hook appends carries a secret to the model either.
  const afterHooks = [options.afterToolCall, commandHooks.afterToolCall, guardrailToolHook(guardrails)].filter((hook): hook is AfterToolCall => hook !== undefined);
  const afterToolCall: AfterToolCall | undefined = afterHooks.length ? composeAfterToolCall(...afterHooks) : undefined;

  const contextFiles = await loadContextFiles({ configDir: base.configDir, claudeHome: claudeHomeDir(), workspace: base.workspace, onWarning: (text) => warnings.push(text) });
  // The prompt of the agent holding the conversation. Its own skills are its to load (its load_skill
  // finds them first); an agent the conversation is handed to has its own instead.
  const agentSystemPrompt = async (instructions: string, agent: Pick<Profile, 'skills' | 'preloadSkills'>, agentTools: ToolRegistry, warn?: (text: string) => void) => {
    const seen = equipOwnSkills(agentTools, catalog, agent.skills);
    const whole = await withPreloadedSkills(instructions, agent.preloadSkills, seen);
    return withAppendix(buildSystemPrompt({ profile: { systemPrompt: whole }, contextFiles, skills: agentTools.get('load_skill') ? seen.skills() : [], workspace: base.workspace, warn }), options.appendSystemPrompt);
  };
  const systemPrompt = await agentSystemPrompt(profile.systemPrompt, profile, tools, (text) => warnings.push(text));
  // Handoffs: the conversation may move to another agent (the handoff tool, `match:` routing, /agent).
  const handoffs = createSessionHandoffs({
    agents: subagents,
    profile,
    available,
    keptTools: () => [...(options.tools ?? []), ...(mcp?.tools() ?? [])].map((tool) => tool.name),
    offered: !removed.some((ruleTool) => ruleCoversTool(ruleTool, HANDOFF_TOOL_NAME)),
    systemPromptFor: (agent, instructions, agentTools) => agentSystemPrompt(instructions, agent, agentTools),
    modelFor: (agentModel) => (agentModel && agentModel !== 'inherit' && !options.model && !values.model ? resolveModelAlias(providerId, agentModel, model) : model),
    session: () => session,
    recordAgent: (target, name) => logs.get(target)?.recordMeta({ kind: 'agent', agent: name }),
  });
  handoffs.withHandoffTool(tools);
  // A resumed conversation comes back to the agent that held it.
  const restoreAgent = async (target: ChatSession) => {
    const name = logs.get(target)?.restoredAgent;
    if (!name || name === handoffs.controller.active.name) return;
    await handoffs.handoff(name, 'the session was resumed', 'command').catch((error: Error) => warnings.push(`Could not return to the ${name} agent: ${error.message}`));
  };
  const store = options.persistSession === false ? undefined : sessionStore(base);
  // Half-written files of a Beans process that was killed mid-write.
  removeStaleTempFiles(workspaceTempDir(base.workspace));
  const toolEnv = toolEnvironment(base.env, { extraKeyVars: providerKeyVariables(base.config), passThrough: values.tools.env.passThrough, strip: values.tools.env.strip });

  // Context windows from the provider's model list, looked up once per model and only when needed.
  const windows = new Map<string, Promise<number | undefined>>();
  const contextWindowOf = (name: string, signal: AbortSignal) => {
    let found = windows.get(name);
    if (!found) {
      const known = modelLimits(providerId, name).contextWindow;
      found = known ? Promise.resolve(known) : client.listModels(signal).then((models) => models.find((entry) => entry.name === name)?.contextWindow, () => undefined);
      windows.set(name, found);
    }
    return found;
  };

  // PreCompact before a summary, SessionStart (source compact) after it: by hand and automatic alike.
  const compactionHooks = {
    before: async (signal: AbortSignal, trigger: 'manual' | 'auto', focus?: string) => {
      if (hooks.has('PreCompact')) notices((await hooks.preCompact(trigger, focus, signal)).userMessages);
    },
    after: async (signal: AbortSignal) => {
      if (!hooks.has('SessionStart')) return;
      const started = await hooks.sessionStart('compact', signal);
      notices(started.userMessages);
      startContext = started.context;
    },
  };

  const conversation = async (resumeId?: string, sessionModel = model): Promise<ChatSession> => {
    let history: AgentMessage[] = [];
    let id: string | undefined;
    let writer: SessionWriter | undefined;
    let sop = values.sop;
    let children = new Map<string, SubagentTranscript>();
    let agentName: string | undefined;
    if (resumeId && store) {
      const loaded = store.load(resumeId);
      children = loaded.subagents;
      agentName = loaded.meta.findLast((entry) => entry.kind === 'agent')?.agent;
      warnings.push(...loaded.warnings);
      history = repairHistory(loaded.messages);
      id = loaded.header.id;
      writer = store.open(id);
      // The session's own model and SOP come back, unless this run names a model itself.
      if (loaded.model && loaded.provider === providerId && !options.model && !values.model) sessionModel = loaded.model;
      if (loaded.sop !== undefined) sop = loaded.sop;
    } else {
      id = options.sessionId ?? store?.newId() ?? randomUUID();
    }
    // Changes made before the first message wait for it: a session file is only made for a conversation.
    const pendingChanges: SessionMetaInput[] = [];
    const openWriter = (session: ChatSession) => {
      if (!writer && store) {
        writer = store.create({ id: session.id, cwd: base.workspace.cwd, workspaceRoot: base.workspace.root, provider: providerId, model: session.model });
        for (const change of pendingChanges.splice(0)) writer.appendMeta(change);
      }
      return writer;
    };
    const approved: ToolRule[] = [];
    const beforeToolCall = beforeToolCallFor(approved);
    const session: ChatSession = new ChatSession({
      id,
      client,
      provider: providerId,
      model: sessionModel,
      systemPrompt,
      sop,
      tools,
      workspace: base.workspace,
      beforeToolCall,
      afterToolCall,
      toolContext: { env: toolEnv, readDenied, sandbox, outputDir: outputDirOf(store, id) },
      maxTurns: values.maxTurns,
      maxBudgetUsd: values.maxBudgetUsd,
      loopDetection: values.loopDetection.enabled ? { maxRepeats: values.loopDetection.maxRepeats } : false,
      transformContext: values.compaction.enabled
        ? autoCompaction(() => session, { threshold: values.compaction.threshold, contextWindow: values.compaction.contextWindow }, contextWindowOf, {
            before: (signal) => compactionHooks.before(signal, 'auto'),
            after: (signal) => compactionHooks.after(signal),
          })
        : undefined,
      messages: history,
      // The file is created with the first message, so opening and closing chat leaves no empty session.
      // A final answer is saved as output guardrails let it be printed (redacted or replaced).
      record: (message) =>
        openWriter(session)?.append(message.role === 'assistant' && message.toolCalls.length === 0 && message.content ? { ...message, content: gateFinalAnswer(message.content, guardrails).text } : message),
      onClose: () => writer?.close(),
      recordChange: (change) => (writer ? writer.appendMeta(change) : pendingChanges.push(change)),
    });
    checks.set(session, beforeToolCall);
    const log: ConversationLog = {
      subagents: children,
      runStartCostUsd: 0,
      restoredAgent: agentName,
      recordMeta: (change) => (writer ? writer.appendMeta(change) : pendingChanges.push(change)),
      recordSubagent: (toolCallId, agentName, message) => {
        let transcript = children.get(toolCallId);
        if (!transcript) children.set(toolCallId, (transcript = { agent: agentName, messages: [] }));
        transcript.messages.push(message);
        openWriter(session)?.appendSubagent(toolCallId, agentName, message);
      },
    };
    logs.set(session, log);
    // The budget is per run: what the session had spent when this run began.
    session.subscribe((event) => event.type === 'agent_start' && (log.runStartCostUsd = session.usage.costUsd));
    // MCP servers offered from memory start once the model answers, off the way to the first
    // request; a call to one of their tools starts it sooner.
    if (mcp) {
      // Once is enough: the listener would otherwise run for every streamed piece of every answer.
      const stop = session.subscribe((event) => {
        const answered = event.type === 'message_update' || event.type === 'retry' || (event.type === 'message_end' && event.message.role === 'assistant');
        if (!answered) return;
        mcp.startRemembered();
        stop();
      });
    }
    approvals.set(session, approved);
    return session;
  };

  let resumeId: string | undefined;
  if (options.resume && store) resumeId = store.resolveId(options.resume);
  else if (options.continue && store) {
    resumeId = store.newest()?.id;
    if (!resumeId) warnings.push('No earlier session in this workspace; starting a new one.');
  }
  let session = await conversation(resumeId);
  await restoreAgent(session);
  // What hooks want the user to know: warnings before the first turn, the front end's channel after.
  const notices = (messages: string[]) => messages.forEach((message) => options.onHookMessage?.(message));
  const notify = async (outcome: Promise<{ userMessages: string[] }>) => notices((await outcome).userMessages);
  // SessionStart hooks: their output is context for the first turn.
  let startContext: string | undefined;
  if (hooks.has('SessionStart')) {
    const started = await hooks.sessionStart(resumeId ? 'resume' : 'startup');
    warnings.push(...started.userMessages);
    startContext = started.context;
  }
  const listeners = new Set<(session: ChatSession) => void>();
  const turn = (prompts: UserMessage[], signal?: AbortSignal) =>
    runTurn(session, prompts, {
      hooks,
      guardrails,
      signal,
      // Each user message may move the conversation up to 3 times; `match:` routing is the first.
      beforeRun: async (text) => {
        handoffs.controller.startMessage();
        await handoffs.controller.route(text);
      },
      startContext: () => {
        const context = startContext;
        startContext = undefined;
        return context;
      },
    });

  const agent: AgentSession = {
    base,
    config: base.config,
    workspace: base.workspace,
    catalog,
    profile,
    providerId,
    client,
    modelNote,
    store,
    warnings,
    hookSet,
    hooks,
    guardrails,
    get session() {
      return session;
    },
    onSessionChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get permissionMode() {
      return permissionMode;
    },
    set permissionMode(mode: PermissionMode) {
      permissionMode = mode;
    },
    workspaceTrusted,
    runUserShell(command, signal) {
      return shellTool.execute({ command }, { signal, workspace: base.workspace, state: session.toolState, env: toolEnv, sandbox, outputDir: outputDirOf(store, session.id) });
    },
    permissionRules() {
      return {
        allow: rulesWithSources(base.config, 'permissions.allow'),
        deny: rulesWithSources(base.config, 'permissions.deny'),
        approved: (approvals.get(session) ?? []).map((rule) => rule.source),
      };
    },
    removeApprovals(rule) {
      const approved = approvals.get(session) ?? [];
      const before = approved.length;
      const kept = approved.filter((entry) => rule !== undefined && entry.source !== rule);
      approved.splice(0, approved.length, ...kept);
      return before - kept.length;
    },
    setAsker(next) {
      asker = next;
    },
    async preparePrompt(text) {
      // `/mcp__server__prompt args`: a prompt an MCP server offers.
      try {
        const expanded = await mcp?.expandPrompt(text);
        if (expanded !== undefined) return { messages: [userMessage(expanded, 'command', text.trim())] };
      } catch (error) {
        return { error: (error as Error).message };
      }
      const prepared = await preparePrompt(text, catalog, {
        workspaceRoot: base.workspace.root,
        runShell: async (command, signal) => {
          const result = await shellTool.execute({ command }, { signal, workspace: base.workspace, state: session.toolState, env: toolEnv, sandbox });
          const exitCode = result.details && 'exitCode' in result.details ? (result.details.exitCode as number | null) : 0;
          return { output: contentText(result.content), exitCode };
        },
        isAllowed: (run) => commandRulesAllow([...run.allowedTools, ...allow.map((rule) => rule.source)], deny),
        // A repository's own commands may not loosen permissions until its owner trusts it.
        commandTrusted: (commandPath) => !isInside(base.workspace.root, commandPath) || workspaceTrusted,
      });
      // A command's allowed-tools and model hold for the run it starts, and only that run.
      const run = 'messages' in prepared ? prepared.run : undefined;
      if (run && (run.allowedTools.length > 0 || run.model)) {
        const added = parseToolRules(run.allowedTools);
        allow.push(...added);
        const running = session;
        const previousModel = running.model;
        const commandModel = run.model ? resolveModelAlias(providerId, run.model, previousModel) : undefined;
        if (commandModel) running.model = commandModel;
        const stop = running.subscribe((event) => {
          if (event.type !== 'agent_end') return;
          stop();
          for (const rule of added) allow.splice(allow.indexOf(rule), 1);
          // Unless someone picked another model meanwhile.
          if (commandModel && running.model === commandModel) running.model = previousModel;
        });
      }
      return prepared;
    },
    async compact(signal, focus) {
      await compactionHooks.before(signal, 'manual', focus);
      const line = await compactSession(session, signal, focus);
      await compactionHooks.after(signal);
      return line;
    },
    async newConversation(id, nextModel = session.model) {
      const next = await conversation(id, nextModel);
      if (!id) await notify(hooks.sessionEnd('clear'));
      session.close();
      session = next;
      handoffs.controller.reset();
      await restoreAgent(next);
      for (const listener of listeners) listener(next);
      // SessionStart again: `clear` for a fresh conversation, `resume` for a stored one.
      if (hooks.has('SessionStart')) {
        const started = await hooks.sessionStart(id ? 'resume' : 'clear');
        notices(started.userMessages);
        startContext = started.context;
      }
      return next;
    },
    get activeAgent() {
      return handoffs.controller.active.name;
    },
    async switchAgent(name) {
      try {
        await handoffs.handoff(name, 'chosen by the user', 'command');
      } catch (error) {
        if (error instanceof HandoffError) throw new UsageError(error.message);
        throw error;
      }
    },
    subagentTranscript: (toolCallId) => logs.get(session)?.subagents.get(toolCallId),
    subagents,
    runSubagent: (definition, prompt, signal) => runSubagent(definition, prompt, { signal, workspace: base.workspace, state: session.toolState }),
    onSubagentEvent(listener) {
      subagentListeners.add(listener);
      return () => subagentListeners.delete(listener);
    },
    async notify(message) {
      if (hooks.has('Notification')) await notify(hooks.notification(message));
    },
    async end(reason = 'other') {
      await notify(hooks.sessionEnd(reason));
    },
    describeProfile: () => {
      const active = handoffs.controller.active.name;
      return active === handoffs.controller.initial.name ? describeProfile(profile) : `${describeProfile(profile)}\nThe conversation was handed off: the ${active} agent holds it now.`;
    },
    initInfo: () => ({
      cwd: base.workspace.cwd,
      model: session.model,
      provider: providerId,
      tools: session.tools.names(),
      permissionMode,
      slashCommands: catalog.commands().map((command) => command.name),
      // The agents `task` can run, as Claude Code lists them: general-purpose, inline, then plugin agents.
      agents: subagents.map((agent) => agent.name),
      skills: catalog.skills().map((skill) => skill.name),
      plugins: catalog.plugins.map((plugin) => ({ name: plugin.name, path: plugin.root, ...(plugin.version ? { version: plugin.version } : {}) })),
      version: VERSION,
      mcpServers: (mcp?.statuses() ?? []).map((server) => ({ name: server.name, status: server.status })),
    }),
    mcpServers: () => mcp?.statuses() ?? [],
    startMcpServers: () => mcp?.startRemembered(),
    runTurn: turn,
    async promptTurn(message, signal) {
      const prepared = await agent.preparePrompt(message.content);
      if ('error' in prepared) return refusedTurn(prepared.error);
      const last = prepared.messages.at(-1);
      // What the program sent beyond text stays on the message that carries its words.
      const messages = last ? [...prepared.messages.slice(0, -1), { ...last, ...(message.parts ? { parts: message.parts } : {}), ...(message.uuid ? { uuid: message.uuid } : {}) }] : [message];
      return turn(messages, signal);
    },
    close: () => {
      session.close();
      void sandbox?.dispose();
      void mcp?.close();
    },
  };
  return agent;
}

interface ConversationLog {
  subagents: Map<string, SubagentTranscript>;
  runStartCostUsd: number;
  restoredAgent?: string;
  recordMeta(change: SessionMetaInput): void;
  recordSubagent(toolCallId: string, agent: string, message: AgentMessage): void;
}

/** Options that are settings become the top configuration layer, so `beans config` shows them as flags. */
function optionFlags(options: AgentSessionOptions): Record<string, unknown> {
  const flags: Record<string, unknown> = { ...options.flags };
  if (options.provider) flags.provider = options.provider;
  if (options.model) flags.model = options.model;
  if (options.permissionMode) flags['permissions.mode'] = parsePermissionMode(options.permissionMode);
  if (options.allowedTools?.length) flags['permissions.allow'] = parseToolRules(options.allowedTools).map((rule) => rule.source);
  if (options.disallowedTools?.length) flags['permissions.deny'] = parseToolRules(options.disallowedTools).map((rule) => rule.source);
  if (options.maxTurns !== undefined) flags.maxTurns = options.maxTurns;
  if (options.maxBudgetUsd !== undefined) flags.maxBudgetUsd = options.maxBudgetUsd;
  if (options.pluginDirs?.length) flags['plugins.dirs'] = options.pluginDirs;
  return flags;
}

/**
 * Who answers "may this call run?": the interactive prompt when one is installed, else the SDK
 * program's canUseTool, else nobody (the call is denied with instructions). `dontAsk` never asks.
 */
function askFunction(options: AgentSessionOptions, asker: () => AskUser | undefined): AskUser | undefined {
  if (isDontAsk(options.permissionMode)) return undefined;
  const canUseTool = options.canUseTool;
  if (!options.interactive && !canUseTool) return undefined;
  return async (request, signal) => {
    const prompt = asker();
    if (prompt) {
      options.onAsk?.(request.tool.name);
      return prompt(request, signal);
    }
    if (canUseTool) return askProgram(canUseTool, request, signal);
    return { decision: 'deny', reason: 'No one is there to approve it.' };
  };
}

async function askProgram(canUseTool: CanUseTool, request: Parameters<AskUser>[0], signal: AbortSignal): ReturnType<AskUser> {
  const answer = await canUseTool(request.tool.name, request.input as Record<string, unknown>, { signal, toolUseID: request.call.id, suggestions: [] });
  if (answer.behavior === 'allow') return { decision: 'once', ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}) };
  return { decision: 'deny', reason: answer.message, ...(answer.interrupt ? { interrupt: true } : {}) };
}

/** Whole outputs of cut tool results live beside the session file (or in the temp folder without one). */
function outputDirOf(store: SessionStore | undefined, id: string | undefined): string | undefined {
  if (!id) return undefined;
  return store ? path.join(store.dir, `${id}.outputs`) : path.join(os.tmpdir(), `beans-outputs-${id}`);
}

function withAppendix(systemPrompt: string, appendix: string | undefined): string {
  return appendix?.trim() ? `${systemPrompt}\n\n${appendix.trim()}` : systemPrompt;
}
