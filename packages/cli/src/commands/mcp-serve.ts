import { statSync } from 'node:fs';
import path from 'node:path';
import { UsageError, type AgentSessionOptions } from '@beans/core';
import type { BeansMcpConnection } from '@beans/core/mcp-server';
import { cliSessionOptions } from '../bootstrap.js';
import type { CliOptions } from '../options.js';
import { SIGNAL_EXIT_CODES, onStopSignals, type StopSignal } from '../signals.js';
import { VERSION } from '../version.js';

export interface McpServeOptions {
  /** `--http PORT`: Streamable HTTP on 127.0.0.1 instead of stdio (0: any free port). */
  http?: string;
  permissionMode?: string;
  cwd?: string;
}

/**
 * Set in the environment of the sessions an `agent` call runs: a Beans they start as an MCP server
 * (a workspace's `.mcp.json` naming `beans mcp serve`) offers its tools but no `agent`, so a model
 * cannot have Beans start Beans without end.
 */
const DEPTH_VARIABLE = 'BEANS_MCP_SERVE_DEPTH';

/**
 * `beans mcp serve [--http PORT] [--permission-mode M] [--cwd DIR]`: Beans as an MCP server on stdio
 * (stdout carries protocol messages only; notes go to stderr), or on Streamable HTTP with a bearer
 * token. Runs until the client disconnects (stdio) or a stop signal.
 */
export async function mcpServe(cli: CliOptions, local: McpServeOptions): Promise<number> {
  const port = local.http === undefined ? undefined : portOf(local.http);
  const token = port === undefined ? undefined : tokenFromEnvironment();
  const cwd = workspaceFolder(local.cwd);
  const options: CliOptions = { ...cli, ...(local.permissionMode ? { permissionMode: local.permissionMode } : {}) };
  const sessionOptions: AgentSessionOptions = { ...cliSessionOptions(options, 'one-shot'), cwd };
  const warn = (text: string) => process.stderr.write(`beans: ${text}\n`);
  const { openToolSession, createBeansMcpConnection } = await import('@beans/core/mcp-server');
  const tools = await openToolSession(sessionOptions);
  for (const warning of tools.warnings) warn(`warning: ${warning}`);
  const depth = Number(process.env[DEPTH_VARIABLE] ?? 0) || 0;
  const agentSession = depth === 0 ? { ...sessionOptions, env: { ...process.env, [DEPTH_VARIABLE]: String(depth + 1) } } : undefined;
  const connect = () => createBeansMcpConnection({ tools, ...(agentSession ? { agentSession } : {}), version: VERSION, warn });

  let stoppedBy: StopSignal | undefined;
  try {
    if (port !== undefined) {
      const { serveMcpHttp } = await import('./mcp-serve-http.js');
      const served = await serveMcpHttp({ port, connect, ...(token ? { token } : {}), warn });
      const removeSignals = onStopSignals((signal) => {
        stoppedBy = signal;
        void served.close().catch(() => undefined);
      });
      await served.closed;
      removeSignals();
    } else {
      const removeSignals = onStopSignals((signal) => {
        stoppedBy = signal;
        process.stdin.destroy();
      });
      await serveStdio(connect());
      removeSignals();
    }
  } finally {
    await tools.end();
    await tools.close();
  }
  return stoppedBy ? SIGNAL_EXIT_CODES[stoppedBy] : 0;
}

/** One connection on stdin and stdout, until the client closes stdin. */
async function serveStdio(connection: BeansMcpConnection): Promise<void> {
  if (process.stdin.isTTY) {
    process.stderr.write(
      'beans: mcp serve speaks MCP on stdin and stdout, for an MCP client to start (docs/mcp.md, "Beans as an MCP server"); --http PORT serves HTTP.\n',
    );
  }
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await connection.server.connect(new StdioServerTransport(process.stdin, process.stdout));
  await ended;
  await connection.close();
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new UsageError(`--http takes a port number (0-65535; 0 picks a free one), not "${text}".`);
  return port;
}

function workspaceFolder(cwd: string | undefined): string {
  const folder = path.resolve(cwd ?? process.cwd());
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isFolder) throw new UsageError(`--cwd ${cwd}: no such folder.`);
  return folder;
}

/** `BEANS_MCP_TOKEN`: a token of the user's own, so a client's configuration survives restarts; else a fresh one each start. */
function tokenFromEnvironment(): string | undefined {
  const token = process.env.BEANS_MCP_TOKEN;
  if (token === undefined || token === '') return undefined;
  // The characters of an RFC 6750 bearer token, which the guard accepts.
  if (!/^[A-Za-z0-9._~+/-]{32,}=*$/.test(token)) {
    throw new UsageError('BEANS_MCP_TOKEN must be at least 32 letters, digits or ._~+/- (e.g. `openssl rand -hex 32`).');
  }
  return token;
}
