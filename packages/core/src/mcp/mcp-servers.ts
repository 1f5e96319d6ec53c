import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { toolEnvironment } from '../tools/tool-env.js';
import type { AnyTool } from '../tools/tool.js';
import type { McpServerConfig, McpServerEntry } from './mcp-config.js';
import { mcpResourceTools, type ResourceServer } from './mcp-resources.js';
import { expandMcpPrompt, type McpPromptInfo } from './mcp-prompts.js';
import { mcpTools, type McpToolInfo } from './mcp-tools.js';
import { readRememberedServer, rememberedServerFile, rememberServer } from './remembered-servers.js';
import { serverControl, type McpSetServersResult, type ServerSlot } from './server-control.js';

export type { McpSetServersResult } from './server-control.js';

/** `pending`: remembered from an earlier run and not connected yet; its remembered tools are offered meanwhile. */
export type McpServerState = 'connected' | 'pending' | 'failed' | 'disabled';

/** What `beans mcp list --json`, `/mcp` and `system/init` show of a server. */
export interface McpServerStatus {
  name: string;
  transport: McpServerConfig['transport'];
  status: McpServerState;
  tools: string[];
  error?: string;
  /** The server's own one-line description: its declared description, else its instructions' first line, else its title. */
  description?: string;
  /** Present when the session defers this server's tools (listed by name, loaded with tool_search): the ones loaded so far. */
  deferred?: { loaded: string[] };
}

export interface McpServerSet {
  /** Every connected server's tools, `mcp__<server>__<tool>`; changes after list_changed. */
  tools(): AnyTool[];
  statuses(): McpServerStatus[];
  /** Prompts of connected servers, as slash commands `/mcp__<server>__<prompt>`. */
  prompts(): McpPromptInfo[];
  /** The text of `/mcp__server__prompt args`, or undefined when `text` names no MCP prompt. */
  expandPrompt(text: string): Promise<string | undefined>;
  /** Called when a server's tool list changed (notifications/tools/list_changed). */
  onToolsChanged(listener: () => void): void;
  /**
   * Starts the servers offered from memory (`rememberDir`), which wait for this, or for a call to one
   * of their tools, so that they start off the way to the first request. Starting twice is a no-op.
   */
  startRemembered(): void;
  /**
   * Disables a server (its connection closes and its tools leave the next request) or enables it
   * again (connects anew). Throws for a name the set does not hold.
   */
  toggle(name: string, enabled: boolean): Promise<void>;
  /** Closes a server's connection and connects again; throws with the server's error if that fails. */
  reconnect(name: string): Promise<void>;
  /**
   * Claude Code's `mcp_set_servers`: the servers named by the previous call and left out of this one
   * are closed; the named ones are added, or replaced when their settings changed. Servers the session
   * started with and no call named stay.
   */
  setServers(entries: readonly McpServerEntry[]): Promise<McpSetServersResult>;
  /** Closes every connection; stdio servers are terminated. */
  close(): Promise<void>;
}

export interface McpConnectOptions {
  /** Per server, for connecting and listing its tools (setting mcp.timeoutMs, env MCP_TIMEOUT). */
  timeoutMs?: number;
  /** Servers' stderr is appended to `<logDir>/<server>.log`, never shown on the screen. */
  logDir?: string;
  /** The environment stdio servers inherit; Beans' own provider keys are removed from it. */
  env?: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Where each server's offer is remembered when it connects. A server remembered there is not
   * waited for: its remembered tools are offered at once, and it starts on `startRemembered`.
   */
  rememberDir?: string;
}

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

/**
 * Connects to every server in parallel. A server that fails (missing command, timeout, refused
 * connection) is listed as failed with its error and the rest go on; with no servers this costs
 * nothing. A server that dies later is restarted on its tools' next call. With `rememberDir`,
 * remembered servers are not started here: the call returns once the others are ready.
 */
export async function connectMcpServers(entries: readonly McpServerEntry[], options: McpConnectOptions): Promise<McpServerSet> {
  const listeners: (() => void)[] = [];
  const changed = () => listeners.forEach((listener) => listener());
  // A slot per configured server; a disabled one keeps its entry and has no connection.
  const slots: ServerSlot<ServerConnection>[] = entries.map((entry) => ({ entry, connection: serverConnection(entry, options, changed) }));
  await Promise.all(slots.filter((slot) => !slot.connection!.remembered).map((slot) => slot.connection!.start()));
  const servers = () => slots.flatMap((slot) => slot.connection ?? []);
  const killOnExit = () => servers().forEach((server) => server.killNow());
  let exitHook = false;
  const watchExit = () => {
    if (!exitHook && slots.length > 0) process.on('exit', killOnExit);
    exitHook ||= slots.length > 0;
  };
  watchExit();
  const resourceServers = () => servers().filter((server) => server.offersResources());
  const resourceTools = mcpResourceTools(resourceServers);
  const control = serverControl(slots, (entry) => serverConnection(entry, options, changed), watchExit, changed);
  return {
    tools: () => [...servers().flatMap((server) => server.tools()), ...(resourceServers().length > 0 ? resourceTools : [])],
    statuses: () =>
      slots.map((slot) => slot.connection?.status() ?? { name: slot.entry.name, transport: slot.entry.config.transport, status: 'disabled', tools: [] }),
    prompts: () => servers().flatMap((server) => server.prompts()),
    expandPrompt: (text) =>
      expandMcpPrompt(
        text,
        servers().flatMap((server) => server.prompts()),
        servers(),
      ),
    onToolsChanged: (listener) => listeners.push(listener),
    startRemembered: () => servers().forEach((server) => void server.start()),
    ...control,
    async close() {
      // The exit hook stays until every server is closed, so exiting meanwhile still kills them.
      await Promise.all(servers().map((server) => server.close()));
      process.off('exit', killOnExit);
    },
  };
}

interface ServerConnection extends ResourceServer {
  /** Its tools were remembered from an earlier run, so nothing waits for its start. */
  remembered: boolean;
  /** Connects once; never rejects (a failure is kept for `status`). */
  start(): Promise<void>;
  offersResources(): boolean;
  prompts(): McpPromptInfo[];
  tools(): AnyTool[];
  status(): McpServerStatus;
  killNow(): void;
  close(): Promise<void>;
}

function serverConnection(entry: McpServerEntry, options: McpConnectOptions, changed: () => void): ServerConnection {
  const timeout = options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const memory = options.rememberDir ? rememberedServerFile(options.rememberDir, entry) : undefined;
  const remembered = memory ? readRememberedServer(memory) : undefined;
  let live: { client: Client; transport: Transport } | undefined;
  let connecting: Promise<Client> | undefined;
  // The transport of a connection not made yet: closing the set must not wait for a slow server.
  let opening: Transport | undefined;
  let started: Promise<void> | undefined;
  let starting = false;
  let infos: McpToolInfo[] = remembered?.tools ?? [];
  let error: string | undefined;
  let closed = false;
  let resources = remembered?.resources ?? false;
  let prompts: McpPromptInfo[] = remembered?.prompts ?? [];
  let description = remembered?.description;

  const connect = async (): Promise<Client> => {
    // The SDK loads with the first connection: servers offered from memory start after the first request.
    const [transport, { Client }] = await Promise.all([createTransport(entry, options), import('@modelcontextprotocol/sdk/client/index.js')]);
    if (closed) throw new Error(`The MCP server ${entry.name} was closed.`);
    opening = transport;
    const client = new Client(
      { name: 'beans', version: '0.1.0' },
      {
        listChanged: {
          tools: {
            onChanged: (failure, tools) => {
              if (failure || !tools) return;
              infos = tools;
              changed();
            },
          },
        },
      },
    );
    client.onclose = () => {
      if (live?.client === client) live = undefined;
    };
    // The process exists once connect has started it (synchronously); a failed connect closes the
    // transport, which then no longer knows its pid.
    const connected = client.connect(transport, { timeout });
    const pid = processId(transport);
    try {
      await connected;
      const listed = await client.listTools(undefined, { timeout });
      const before = JSON.stringify(infos);
      infos = listed.tools;
      resources = client.getServerCapabilities()?.resources !== undefined;
      prompts = [];
      if (client.getServerCapabilities()?.prompts) {
        const listed = await client.listPrompts(undefined, { timeout });
        prompts = listed.prompts.map((prompt) => ({
          server: entry.name,
          name: prompt.name,
          ...(prompt.description ? { description: prompt.description } : {}),
          arguments: prompt.arguments ?? [],
        }));
      }
      description = serverDescription(client);
      if (memory) rememberServer(memory, { tools: infos, prompts, resources, ...(description ? { description } : {}) });
      // What the server offers now replaces what was remembered, from the next request on.
      if (remembered && JSON.stringify(infos) !== before) changed();
    } catch (failure) {
      // A server that failed its handshake gets no graceful close: the SDK's waits 2 s and more, on
      // timers that let Beans exit first, leaving the server running.
      killProcess(pid);
      await client.close().catch(() => undefined);
      throw new Error(describeFailure(entry, failure, timeout), { cause: failure });
    } finally {
      opening = undefined;
    }
    if (closed) {
      await client.close();
      throw new Error(`The MCP server ${entry.name} was closed.`);
    }
    live = { client, transport };
    error = undefined;
    return client;
  };

  // One connection attempt at a time; a dead server is restarted by the next call that needs it.
  const connection = (): Promise<Client> => {
    if (live) return Promise.resolve(live.client);
    if (closed) return Promise.reject(new Error(`The MCP server ${entry.name} is closed.`));
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  const start = (): Promise<void> =>
    (started ??= (async () => {
      starting = true;
      try {
        await connection();
      } catch (failure) {
        error = (failure as Error).message;
        // Remembered tools of a server that no longer starts leave the next request.
        if (remembered) {
          infos = [];
          prompts = [];
          resources = false;
          changed();
        }
      } finally {
        starting = false;
      }
    })());
  // A remembered server not started yet starts for the call that needs it.
  const client = async (): Promise<Client> => {
    await start();
    return connection();
  };
  const pending = () => starting || (remembered !== undefined && started === undefined);

  return {
    name: entry.name,
    remembered: remembered !== undefined,
    client,
    offersResources: () => resources,
    prompts: () => (live || pending() ? prompts : []),
    start,
    tools: () => (live || infos.length > 0 ? mcpTools(entry.name, infos, client) : []),
    status: () => ({
      name: entry.name,
      transport: entry.config.transport,
      status: live ? 'connected' : pending() ? 'pending' : 'failed',
      tools: infos.map((info) => info.name),
      ...(description ? { description } : {}),
      ...(live || pending() ? {} : { error: error ?? 'disconnected' }),
    }),
    killNow() {
      kill(live?.transport ?? opening);
    },
    async close() {
      closed = true;
      // A server still starting has nothing to finish: it is not given the 2-4 s a connected one gets.
      if (!live && opening) {
        kill(opening);
        await opening.close().catch(() => undefined);
      }
      const current = live ?? (await connecting?.then(() => live).catch(() => undefined));
      live = undefined;
      await current?.client.close().catch(() => undefined);
    },
  };
}

/** One line of at most 120 characters; servers often write paragraphs of instructions. */
function serverDescription(client: Client): string | undefined {
  const info = client.getServerVersion() as { description?: unknown; title?: unknown } | undefined;
  const text = [info?.description, client.getInstructions(), info?.title].find((value): value is string => typeof value === 'string' && value.trim() !== '');
  const line = text?.trim().split('\n')[0]!.trim();
  return line && line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

function kill(transport: Transport | undefined): void {
  killProcess(processId(transport));
}

function processId(transport: Transport | undefined): number | undefined {
  return (transport as { pid?: number | null } | undefined)?.pid ?? undefined;
}

function killProcess(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

async function createTransport(entry: McpServerEntry, options: McpConnectOptions): Promise<Transport> {
  const config = entry.config;
  if (config.transport === 'stdio') {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const env = { ...stringEnv(toolEnvironment(options.env ?? process.env)), ...config.env };
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env,
      cwd: config.cwd ? path.resolve(options.cwd, config.cwd) : options.cwd,
      stderr: options.logDir ? 'pipe' : 'ignore',
    });
    if (options.logDir) {
      mkdirSync(options.logDir, { recursive: true });
      const log = createWriteStream(path.join(options.logDir, `${entry.name}.log`), { flags: 'a' });
      // The log is a courtesy: a full disk or a removed state folder must not end the session.
      log.on('error', () => undefined);
      transport.stderr?.pipe(log);
    }
    return transport;
  }
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  if (config.transport === 'sse') {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    return new SSEClientTransport(url, { requestInit });
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return new StreamableHTTPClientTransport(url, { requestInit });
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((pair): pair is [string, string] => pair[1] !== undefined));
}

function describeFailure(entry: McpServerEntry, failure: unknown, timeout: number): string {
  const config = entry.config;
  const what = config.transport === 'stdio' ? `"${[config.command, ...config.args].join(' ')}"` : config.url;
  const code = (failure as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' && config.transport === 'stdio')
    return `The MCP server ${entry.name} could not start: the command ${config.command} was not found. Install it or fix "command" in ${entry.source}.`;
  const message = (failure as Error).message ?? String(failure);
  if (/timed out|timeout/i.test(message))
    return `The MCP server ${entry.name} (${what}) did not answer within ${timeout} ms. Check that it starts, or raise mcp.timeoutMs (MCP_TIMEOUT).`;
  return `The MCP server ${entry.name} (${what}) failed: ${message}`;
}
