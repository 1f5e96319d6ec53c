import { assembleTools } from './assemble-tools.js';
import type { AgentSession } from './agent-session-types.js';
import { createBackgroundShells } from './background-shells.js';
import { builtinPluginsDir, programEnvironment } from './base.js';
import { loadCatalogAndSubagents } from './catalog-subagents.js';
import { createCompaction } from './compaction-hooks.js';
import { createConversationFactory } from './conversation.js';
import { deferMcpTools } from './defer-tools.js';
import { openFirstConversation } from './first-conversation.js';
import { createHandoffs } from './handoffs.js';
import { createLive } from './live.js';
import { createPermissionChain } from './permission-chain.js';
import { bindRunContext, type CreateSessionOptions } from './run-context.js';
import { createSessionCheckpoints } from './session-checkpoints.js';
import { loadSessionHooks } from './session-hooks.js';
import { createSessionLsp } from './session-lsp.js';
import { assembleAgentSession } from './session-object.js';
import type { AgentSessionOptions } from './session-options.js';
import { createSessionSandbox } from './session-sandbox.js';
import { openSessionStorage } from './session-storage.js';
import { createSessionSubagents } from './session-subagents.js';
import { startSessionTelemetry } from './session-telemetry.js';
import { settleAgent } from './settle-agent.js';
import { settleWorkspace } from './settle-workspace.js';
import { startMcp } from './start-mcp.js';
import { firstSystemPrompt } from './first-system-prompt.js';
import { loadSystemPrompts } from './system-prompt.js';
import { createToolContext } from './tool-context.js';
import { createSessionSchedules } from './session-schedules.js';
import { createTurnRunner } from './turn-runner.js';
import { decideWorkspaceTrust } from './workspace-trust.js';

// The session's public types live beside it (agent-session-types.ts) so its parts can name them
// without importing this file back; this file is their public face.
export type { AgentSession, PermissionRulesInfo } from './agent-session-types.js';

/**
 * Builds one session of Beans: every mode (one-shot, chat, `query()`, the SDK protocol, subagents'
 * workflows) is a thin client of it. A failure stops what was already started (MCP server processes).
 */
export async function createAgentSession<TContext = unknown>(options: CreateSessionOptions<TContext> = {}): Promise<AgentSession> {
  const started: (() => Promise<void>)[] = [];
  try {
    return await buildAgentSession(await bindRunContext(options), (stop) => started.push(stop));
  } catch (error) {
    await Promise.all(started.map((stop) => stop()));
    throw error;
  }
}

/**
 * The composition root, read top to bottom: each line calls one part (its own file in runtime/,
 * a typed input naming the fields it reads, and an output). `live` holds what changes after it is
 * built (the live conversation and its log, the permission mode, the asker, SessionStart context):
 * parts read it when called, never at build time. Parts return their warnings; the session shows
 * them in the order the parts ran. A new capability is one new part file and one line here; see
 * packages/core/README.md, whose runtime map lists every part called here (a test holds it to this).
 */
async function buildAgentSession(options: AgentSessionOptions, onFailure: (stop: () => Promise<void>) => void): Promise<AgentSession> {
  const settled = await settleWorkspace(options);
  const { base } = settled;
  const { workspace, env, config, configDir } = base;
  const settings = config.values;
  const programEnv = (passThrough?: readonly string[]) => programEnvironment(base, passThrough);
  const builtinDir = options.builtinPluginsDir ?? builtinPluginsDir();
  const live = createLive({ permissionMode: settings.permissions.mode, onHookMessage: options.onHookMessage });
  const shellSandbox = await createSessionSandbox({ settings: settings.sandbox, deny: settings.permissions.deny, workspaceRoot: workspace.root });
  const { sandbox } = shellSandbox;
  const plugins = await loadCatalogAndSubagents({ workspaceRoot: workspace.root, configDir, settings: settings.plugins, builtinDir, agents: options.agents });
  const { catalog, subagents } = plugins;
  const sources = { workspaceRoot: workspace.root, env, plugins: catalog.plugins, builtinPluginsDir: builtinDir, settingSources: options.settingSources };
  const trust = await decideWorkspaceTrust({ ...sources, trustFlag: options.trustWorkspace });
  const mcpStarting = startMcp({ sources, cwd: workspace.cwd, trust, settings, serverEnv: programEnv(), options, onFailure });
  const agent = await settleAgent({ config, env, workspace, catalog, options });
  const started = await mcpStarting;
  const mcp = started.servers;
  const storage = openSessionStorage({ workspace, env, settings, toolEnv: programEnv(settings.tools.env.passThrough), options });
  const background = createBackgroundShells({ maxTasks: settings.shell.maxBackgroundTasks, keepAtClose: options.keepBackgroundTasks === true });
  const lsp = createSessionLsp({ workspace, sources, trust, settings: settings.lsp, serverEnv: programEnv(), live });
  const checkpoints = createSessionCheckpoints({ workspace, settings: settings.checkpoints, storage, live });
  const seams = [checkpoints.seam, background.seam, lsp.seam];
  const hooks = await loadSessionHooks({ sources, trust, hookEnv: programEnv(settings.hooks?.env?.passThrough), options, agent, storage, live, seams });
  const permissions = createPermissionChain({ config, workspace, options, live, hooks, sandboxed: sandbox !== undefined });
  const scheduled = createSessionSchedules({ live, storage, agent, background });
  const toolContext = createToolContext({ storage, permissions, sandbox, background, options, schedules: scheduled.schedules });
  const prompts = await loadSystemPrompts({ workspace, configDir, catalog, trusted: trust.trusted, options });
  const compaction = createCompaction({ agent, hooks, live });
  const children = createSessionSubagents({ settings, workspace, agent, plugins, prompts, hooks, permissions, storage, toolContext, live, compaction, mcp });
  const tools = assembleTools({ settings, options, catalog, agent, children, mcp, lsp, permissions, live });
  const deferral = deferMcpTools({ settings, agent, tools, mcp, live });
  const systemPrompt = await firstSystemPrompt({ prompts, agent, tools, deferral });
  const handoffs = createHandoffs({ settings, options, agent, subagents, tools, permissions, prompts, mcp, live });
  const telemetry = await startSessionTelemetry({ env, workspace, settings, options, permissions, handoffs, live });
  const conversation = createConversationFactory({
    settings,
    workspace,
    options,
    agent,
    systemPrompt,
    tools,
    hooks,
    permissions,
    storage,
    toolContext,
    compaction,
    mcp,
    telemetry,
    live,
  });
  const first = await openFirstConversation({ options, storage, conversation, handoffs, hooks, live });
  const runTurn = createTurnRunner({ live, hooks, agent, handoffs, outputFormat: options.outputFormat, background });
  // In the order the parts found them, the settings' first: front ends show them so.
  const warnings = [settled, shellSandbox, trust, started, lsp, hooks, prompts, systemPrompt, first].flatMap((part) => part.warnings);
  return assembleAgentSession({
    base,
    warnings,
    live,
    trust,
    toolContext,
    plugins,
    mcp,
    agent,
    storage,
    hooks,
    permissions,
    children,
    handoffs,
    compaction,
    telemetry,
    conversation,
    runTurn,
    checkpoints,
    background,
    lsp,
    scheduled,
  });
}
