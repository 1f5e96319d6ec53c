// The official MCP client (Client with StdioClientTransport or StreamableHTTPClientTransport) against
// the built `bin/beans mcp serve`, as Claude Desktop, Codex or an editor would start it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { BEANS_BIN, type TempRepo } from './harness.ts';

const clients: Client[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export interface StdioServed {
  client: Client;
  stderr(): string;
  /** Milliseconds from spawn to a finished `initialize`. */
  initializeMs: number;
}

/** `beans mcp serve ARGS` in the repository, connected over stdio. */
export async function serveStdio(repo: TempRepo, args: string[] = [], env: NodeJS.ProcessEnv = {}, cwd = repo.dir): Promise<StdioServed> {
  const transport = new StdioClientTransport({
    command: BEANS_BIN,
    args: ['mcp', 'serve', ...args],
    cwd,
    env: { ...repo.env, ...env } as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'beans-e2e', version: '1.0.0' });
  clients.push(client);
  const started = performance.now();
  await client.connect(transport);
  return { client, stderr: () => stderr, initializeMs: performance.now() - started };
}

export interface HttpServed {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  port: number;
  token: string;
  stdout(): string;
  stderr(): string;
  /** A connected client sending the token. */
  connect(): Promise<Client>;
}

/** `beans mcp serve --http 0 ARGS`, once it printed where it serves. */
export async function serveHttp(repo: TempRepo, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServed> {
  const child = spawn(BEANS_BIN, ['mcp', 'serve', '--http', '0', ...args], { cwd: repo.dir, env: { ...repo.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const printed = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`beans mcp serve --http printed nothing in 20 s\nstderr: ${stderr}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Beans is serving MCP on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)#token=(\S+)\n/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => reject(new Error(`beans mcp serve --http exited with ${code}\nstderr: ${stderr}`)));
  });
  const [, url, port, token] = printed as unknown as [string, string, string, string];
  return {
    child,
    url,
    port: Number(port),
    token,
    stdout: () => stdout,
    stderr: () => stderr,
    connect: async () => {
      const client = new Client({ name: 'beans-e2e-http', version: '1.0.0' });
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return client;
    },
  };
}

/** The text parts of a tool result, joined. */
export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n');
}

/** The user's own settings file (trusted, as a user's settings are). */
export function writeUserSettings(repo: TempRepo, settings: unknown): void {
  const file = path.join(repo.home, '.config', 'beans-agent', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings));
}
