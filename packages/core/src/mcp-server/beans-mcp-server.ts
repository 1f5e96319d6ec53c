// The low-level Server, not McpServer ("only for advanced use cases": this is one): Beans' tools
// arrive with their own JSON Schemas and validation (the executor's, whose messages say how to fix a
// call), which McpServer would redo from zod shapes.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { parseToolRules } from '../permissions/rules.js';
import { randomUuid } from '../random-ids.js';
import type { AgentSession } from '../runtime/agent-session.js';
import { sessionStore } from '../runtime/base.js';
import type { AgentSessionOptions } from '../runtime/session-options.js';
import { agentTool, runAgentTool } from './agent-tool.js';
import { mcpCallResult, mcpToolOf, modeOffering, refusal, servedToolNames } from './served-tools.js';
import { readSessionResource, SESSION_TEMPLATE, sessionResources } from './session-resources.js';

export interface BeansMcpServerOptions {
  /** The session every tool call runs in (`openToolSession`); one per process, shared by its connections. */
  tools: AgentSession;
  /** The options each `agent` call's session is made from; absent: no `agent` tool. */
  agentSession?: AgentSessionOptions;
  version: string;
  /** Warnings for the person running the server (stderr): never on the protocol's stdout. */
  warn(text: string): void;
}

/** One connection's server; `close` aborts the agent runs it started. */
export interface BeansMcpConnection {
  server: Server;
  close(): Promise<void>;
}

/**
 * Beans as an MCP server for one client connection (stdio, or one Streamable HTTP session): its tools
 * as the permission mode offers them, each call run through the tool session's policy, hooks and
 * fences; the `agent` tool; and the workspace's session transcripts as resources. The transport is
 * the caller's (core never writes to stdout).
 */
export function createBeansMcpConnection(options: BeansMcpServerOptions): BeansMcpConnection {
  const { tools: session } = options;
  const mode = session.permissionMode;
  const registry = session.session.tools;
  const served = servedToolNames(mode, registry);
  const store = sessionStore(session.base);
  const agent = options.agentSession
    ? {
        session: options.agentSession,
        workspaceRoot: session.workspace.root,
        permissionMode: mode,
        mayChange: agentMayChange(session),
        warn: (text: string) => options.warn(text),
      }
    : undefined;
  const listed = [...served.map((name) => mcpToolOf(registry, name)), ...(agent ? [agentTool(agent)] : [])];

  const server = new Server(
    { name: 'beans', title: 'Beans', version: options.version },
    {
      capabilities: { tools: {}, resources: { listChanged: true } },
      instructions:
        `Beans' tools on the workspace ${session.workspace.root} (permission mode ${mode}). ` +
        'Paths are relative to that folder or absolute inside it; nothing outside it can be read or written. ' +
        "Calls Beans' policy refuses come back as errors saying why. " +
        (agent ? 'The agent tool runs a whole Beans session on a prompt. ' : '') +
        'Resources: beans://sessions/<id>, the transcripts of the sessions of this workspace.',
    },
  );
  const runs = new Set<AbortController>();

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (name === 'agent' && agent) {
      // The run stops when the client cancels (extra.signal) or the connection closes; a client gone
      // by the end gets no notification (sending it then fails, which must not end the server).
      const controller = new AbortController();
      const stop = () => controller.abort();
      extra.signal.addEventListener('abort', stop, { once: true });
      runs.add(controller);
      try {
        return await runAgentTool(
          args,
          { ...extra, signal: controller.signal },
          { ...agent, onSessionWritten: () => void server.sendResourceListChanged().catch(() => undefined) },
        );
      } finally {
        runs.delete(controller);
        extra.signal.removeEventListener('abort', stop);
      }
    }
    if (!served.includes(name)) return refusal(notOffered(name, mode, served, agent !== undefined));
    const result = await session.session.runToolCall({ id: `mcp-${randomUuid()}`, name, arguments: args ?? {} }, extra.signal);
    return mcpCallResult(result);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: sessionResources(store) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [SESSION_TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readSessionResource(store, request.params.uri));

  return {
    server,
    close: async () => {
      for (const run of runs) run.abort();
      await server.close();
    },
  };
}

/** Why a tool is not there, and what would offer it. */
function notOffered(name: string, mode: string, served: readonly string[], hasAgent: boolean): string {
  const offered = [...served, ...(hasAgent ? ['agent'] : [])].join(', ');
  const needs = modeOffering(name);
  const how =
    needs && needs !== 'default'
      ? ` Start beans mcp serve with --permission-mode ${needs === 'auto-edit' ? 'auto-edit (or yolo)' : 'yolo'} to offer it.`
      : needs === 'default'
        ? ' A deny rule or the agent profile removed it.'
        : '';
  return `${name} is not offered by this server (permission mode ${mode}); it offers ${offered}. Nothing was run.${how}`;
}

/**
 * Whether an `agent` run may change files or run commands without asking: its mode lets it, or a
 * rule in force allows a tool that is not read-only (an MCP tool's effects are unknown: it counts).
 */
function agentMayChange(session: AgentSession): boolean {
  if (session.permissionMode === 'auto-edit' || session.permissionMode === 'yolo') return true;
  return session.permissionRules().allow.some(({ rule }) =>
    parseToolRules(rule).some((parsed) => {
      const kind = session.session.tools.get(parsed.tool)?.kind;
      return kind === undefined || kind === 'edit' || kind === 'execute';
    }),
  );
}
