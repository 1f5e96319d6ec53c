import type { ChatResult, LLMClient, ProviderFailure, StreamEvent, Usage } from '../llm/types.js';
import { createAgentSession, type AgentSession } from '../runtime/agent-session.js';
import type { AgentSessionOptions } from '../runtime/session-options.js';

const NOTHING_SPENT: Usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

const NO_MODEL: ProviderFailure = {
  kind: 'bad_request',
  message: "The session of beans mcp serve's tools talks to no model; the agent tool runs sessions that do.",
  retryable: false,
};

/**
 * The client of the tool session: it never answers. A tool call needs no model, so serving tools
 * needs no provider key or reachable server, and nothing is sent anywhere.
 */
const toolsOnlyClient: LLMClient = {
  provider: 'none',
  resolveModel: () => Promise.resolve({ model: 'none' }),
  // An async generator that fails at once, as the contract says (no throw).
  async *chatStream(): AsyncIterable<StreamEvent> {
    yield { type: 'error', stopReason: 'error', failure: NO_MODEL, text: '', toolCalls: [], usage: NOTHING_SPENT };
  },
  chat: (): Promise<ChatResult> => Promise.resolve({ stopReason: 'error', text: '', toolCalls: [], usage: NOTHING_SPENT, failure: NO_MODEL }),
  listModels: () => Promise.resolve([]),
};

/**
 * The session `beans mcp serve` runs its clients' tool calls in, made by createAgentSession from the
 * same options as any session of this folder: trust, settings, hooks, the permission policy and its
 * deny rules, the sandbox and the workspace fence are the ones a chat here has, and its mode is the
 * one those settle on. Three things differ, because no model works in it: it talks to no provider,
 * keeps no session file, and starts no MCP servers (a folder whose `.mcp.json` names
 * `beans mcp serve` would otherwise start itself again for every connection).
 */
export function openToolSession(options: AgentSessionOptions): Promise<AgentSession> {
  return createAgentSession({
    ...options,
    client: toolsOnlyClient,
    model: 'none',
    agentDescription: undefined,
    resume: undefined,
    continue: false,
    sessionId: undefined,
    persistSession: false,
    interactive: false,
    mcpServers: undefined,
    mcpConfig: [],
    strictMcpConfig: true,
    mcpFromLastRun: false,
  });
}
