import { assembleTools } from './assemble-tools.js';
import type { AgentSession } from './agent-session-types.js';
import { loadCatalogAndSubagents } from './catalog-subagents.js';
import { createCompaction } from './compaction-hooks.js';
import { createConversationFactory } from './conversation.js';
import { createConversationLogs } from './conversation-logs.js';
import { deferMcpTools } from './defer-tools.js';
import { createSessionCheckpoints } from './session-checkpoints.js';
import { openFirstConversation } from './first-conversation.js';
import { createHandoffs } from './handoffs.js';
import { createLive } from './live.js';
import { createPermissionChain } from './permission-chain.js';
import { assembleAgentSession } from './session-object.js';
import { loadSessionHooks } from './session-hooks.js';
import type { AgentSessionOptions } from './session-options.js';
import { bindRunContext, type CreateSessionOptions } from './run-context.js';
import { openSessionStorage } from './session-storage.js';
import { createSessionSubagents } from './session-subagents.js';
import { settleAgent } from './settle-agent.js';
import { settleWorkspace } from './settle-workspace.js';
import { startMcp } from './start-mcp.js';
import { loadSystemPrompts } from './system-prompt.js';
import { settleTrustAndSandbox } from './trust-sandbox.js';
import { createTurnRunner } from './turn-runner.js';
import { settleNewDeclarations } from './settle-declarations.js';
import { startSessionTelemetry } from './session-telemetry.js';
import { createBackgroundShells } from './background-shells.js';
import { createSessionLsp } from './session-lsp.js';

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
 * The composition root, read top to bottom: each line is one part (its own file in runtime/, a typed
 * input and output). `live` holds what changes after it is built (the live conversation, the
 * permission mode, the asker, SessionStart context): parts read it when called, never at build time.
 * A new capability is one new part file and one line here; see packages/core/README.md.
 */
// Kept one line per part by hand until each part takes only the fields it reads (issue 52).
// prettier-ignore
async function buildAgentSession(options: AgentSessionOptions, onFailure: (stop: () => Promise<void>) => void): Promise<AgentSession> {
  const { base, warnings } = await settleWorkspace(options);
  const live = createLive(options, base.config.values.permissions.mode);
  const trust = await settleTrustAndSandbox(base, options, warnings);
  const plugins = await loadCatalogAndSubagents(base, options);
  const { catalog, subagents } = plugins;
  const fresh = await settleNewDeclarations({ base, options, catalog, workspaceTrusted: trust.workspaceTrusted, warnings });
  const mcpStarting = startMcp({ base, options, catalog, workspaceTrusted: trust.workspaceTrusted, skipServer: fresh.skipServer, warnings, onFailure });
  const agent = await settleAgent(base, catalog, options);
  const mcp = await mcpStarting;
  const storage = openSessionStorage(base, options);
  const background = createBackgroundShells({ base, options });
  const lsp = createSessionLsp({ base, options, catalog, workspaceTrusted: trust.workspaceTrusted, skipServer: fresh.skipLspServer, live, warnings });
  const logs = createConversationLogs();
  const checkpoints = createSessionCheckpoints({ base, storage, live, logs: () => logs });
  const hooks = await loadSessionHooks({ base, options, catalog, workspaceTrusted: trust.workspaceTrusted, skipHook: fresh.skipHook, guardrails: agent.guardrails, store: storage.store, live, warnings, toolSeams: [...(checkpoints.seam ? [checkpoints.seam] : []), background.seam, ...(lsp.seam ? [lsp.seam] : [])] });
  const permissions = createPermissionChain({ base, options, live, hooks, sandboxed: trust.sandbox !== undefined });
  const prompts = await loadSystemPrompts({ base, options, catalog, workspaceTrusted: trust.workspaceTrusted, warnings });
  const compaction = createCompaction({ agent, hooks, live });
  const children = createSessionSubagents({ base, agent, catalog, subagents, prompts, hooks, permissions, storage, sandbox: trust.sandbox, logs, live, editorFiles: options.editorFiles, memory: options.memory, compaction, mcp, background });
  const tools = assembleTools({ base, options, catalog, profile: agent.profile, taskTool: children.taskTool, mcp, lspTool: lsp.tool, permissions, live });
  const deferral = deferMcpTools({ base, agent, tools, mcp, logs, live });
  const systemPrompt = deferral.withListing(await prompts.systemPromptFor(agent.profile.systemPrompt, agent.profile, tools.tools, (text) => warnings.push(text)));
  const handoffs = createHandoffs({ base, options, agent, subagents, tools, permissions, prompts, mcp, logs, live, warnings });
  const telemetry = await startSessionTelemetry({ base, options, permissions, handoffs, live });
  const conversation = createConversationFactory({ base, options, agent, systemPrompt, tools, hooks, permissions, storage, sandbox: trust.sandbox, compaction, mcp, logs, telemetry, background, warnings });
  await openFirstConversation({ options, storage, conversation, handoffs, hooks, live, warnings });
  const runTurn = createTurnRunner({ live, hooks, guardrails: agent.guardrails, handoffs, outputFormat: options.outputFormat, background });
  return assembleAgentSession({ base, warnings, live, trust, plugins, mcp, agent, storage, hooks, permissions, children, logs, handoffs, compaction, telemetry, conversation, runTurn, checkpoints, background, lsp, fresh });
}
