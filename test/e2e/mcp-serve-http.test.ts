// `beans mcp serve --http`: the official StreamableHTTPClientTransport with the printed token, and
// hostile requests sent with node's http.request (forged Host and Origin headers as DNS rebinding
// sends them, no or wrong tokens, oversized bodies, CORS preflights), with marker files as the proof
// that nothing ran.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import { BEANS_BIN, makeTempRepo, runBeans } from './harness.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveHttp, textOf, type HttpServed } from './mcp-serve-client.ts';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One raw request; `body` as a string is sent with its length, as an array of pieces chunked. */
function send(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | string[]; setHost?: boolean },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path ?? '/mcp', headers: options.headers, setHost: options.setHost ?? true },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (Array.isArray(options.body)) for (const piece of options.body) req.write(piece);
    else if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const writeMarker = (id: number, file: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write_file', arguments: { path: file, content: 'ran' } } });

/** A session the legitimate client holds: its id, which an attacker might learn. */
async function openSession(served: HttpServed): Promise<string> {
  const reply = await send(served.port, { headers: { ...JSON_HEADERS, authorization: `Bearer ${served.token}` }, body: initialize });
  expect(reply.status, reply.body).toBe(200);
  return reply.headers['mcp-session-id'] as string;
}

function expectNoCors(reply: Reply): void {
  expect(Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
}

describe('beans mcp serve --http', () => {
  it('prints where it serves with the token once; the official client with the token lists and calls the tools', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'served over http\n' });
    const served = await serveHttp(repo, ['--permission-mode', 'yolo']);
    expect(served.stdout().split(served.token)).toHaveLength(2); // once
    expect(served.stderr()).not.toContain(served.token);
    expect(served.token.length).toBeGreaterThanOrEqual(40);
    const client = await served.connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('shell');
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(textOf(read)).toContain('served over http');
    const outside = await client.callTool({ name: 'read_file', arguments: { path: '/etc/hostname' } });
    expect(outside.isError).toBe(true);
    // A second client gets a session of its own.
    const other = await served.connect();
    expect((await other.listTools()).tools).toHaveLength(tools.length);
  });

  it('a missing or wrong token gets 401 and nothing else: no session, no tool run, nothing of the server in the answer', async () => {
    const repo = makeTempRepo();
    const served = await serveHttp(repo, ['--permission-mode', 'yolo']);
    const session = await openSession(served);
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token' },
      { authorization: `Bearer ${served.token.slice(0, -1)}` },
      { authorization: `Bearer ${served.token}x` },
      { authorization: `Basic ${Buffer.from(`beans:${served.token}`).toString('base64')}` },
      { authorization: served.token },
    ];
    for (const [index, auth] of attempts.entries()) {
      for (const body of [initialize, writeMarker(2, `marker-${index}.txt`)]) {
        const reply = await send(served.port, { headers: { ...JSON_HEADERS, ...auth, 'mcp-session-id': session }, body });
        expect(reply.status, JSON.stringify(auth)).toBe(401);
        expect(reply.headers['www-authenticate']).toMatch(/^Bearer\b/);
        expect(reply.headers['mcp-session-id']).toBeUndefined();
        expect(reply.body).not.toMatch(/jsonrpc|read_file|write_file|beans:\/\//);
        expectNoCors(reply);
      }
    }
    const inQuery = await send(served.port, { path: `/mcp?token=${served.token}`, headers: JSON_HEADERS, body: writeMarker(3, 'marker-query.txt') });
    expect(inQuery.status).toBe(401);
    // The same call with the token runs: the markers above are missing only because of the 401s.
    const allowed = await send(served.port, {
      headers: { ...JSON_HEADERS, authorization: `Bearer ${served.token}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: writeMarker(4, 'marker-allowed.txt'),
    });
    expect(allowed.status, allowed.body).toBe(200);
    await expect.poll(() => existsSync(path.join(repo.dir, 'marker-allowed.txt'))).toBe(true);
    for (const index of attempts.keys()) expect(existsSync(path.join(repo.dir, `marker-${index}.txt`))).toBe(false);
    expect(existsSync(path.join(repo.dir, 'marker-query.txt'))).toBe(false);
  });

  it('a forged Host or a foreign Origin (DNS rebinding, a web page) gets 403 even with the token', async () => {
    const repo = makeTempRepo();
    const served = await serveHttp(repo, ['--permission-mode', 'yolo']);
    const session = await openSession(served);
    const auth = { ...JSON_HEADERS, authorization: `Bearer ${served.token}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const forged: Record<string, string>[] = [
      { host: `attacker.example:${served.port}` },
      { host: `attacker.example:${served.port}`, origin: `http://attacker.example:${served.port}` },
      { host: `127.0.0.1.attacker.example:${served.port}` },
      { host: `localhost.attacker.example:${served.port}` },
      { origin: 'http://attacker.example' },
      { origin: 'null' },
      { origin: `https://127.0.0.1:${served.port}` },
      { origin: `http://127.0.0.1:${served.port}.attacker.example` },
    ];
    for (const [index, headers] of forged.entries()) {
      const reply = await send(served.port, { headers: { ...auth, ...headers }, body: writeMarker(10 + index, `rebound-${index}.txt`) });
      expect(reply.status, JSON.stringify(headers)).toBe(403);
      expectNoCors(reply);
    }
    // Without any Host, Node's HTTP server refuses the request itself (400) before Beans sees it.
    const noHost = await send(served.port, { headers: auth, body: writeMarker(30, 'rebound-nohost.txt'), setHost: false });
    expect([400, 403]).toContain(noHost.status);
    // The server's own origin (a page it would serve) and localhost pass.
    for (const headers of [{ origin: `http://127.0.0.1:${served.port}` }, { host: `localhost:${served.port}` }]) {
      const reply = await send(served.port, { headers: { ...auth, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 40, method: 'tools/list' }) });
      expect(reply.status, JSON.stringify(headers)).toBe(200);
      expectNoCors(reply);
    }
    for (const index of forged.keys()) expect(existsSync(path.join(repo.dir, `rebound-${index}.txt`))).toBe(false);
    expect(existsSync(path.join(repo.dir, 'rebound-nohost.txt'))).toBe(false);
  });

  it('a body over 1 MB gets 413, declared or streamed, and the server goes on serving', async () => {
    const repo = makeTempRepo();
    const served = await serveHttp(repo, ['--permission-mode', 'yolo']);
    const session = await openSession(served);
    const auth = { ...JSON_HEADERS, authorization: `Bearer ${served.token}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path: 'big.txt', content: 'x'.repeat(1_500_000) } },
    });
    const declared = await send(served.port, { headers: auth, body: big });
    expect(declared.status).toBe(413);
    const streamed = await send(served.port, { headers: auth, body: [big.slice(0, 700_000), big.slice(700_000)] });
    expect(streamed.status).toBe(413);
    expect(existsSync(path.join(repo.dir, 'big.txt'))).toBe(false);
    const client = await served.connect();
    // The official client (fetch) sends the whole body before it reads: it still gets the 413.
    await expect(client.callTool({ name: 'write_file', arguments: { path: 'big.txt', content: 'x'.repeat(1_500_000) } })).rejects.toMatchObject({
      code: 413,
      message: expect.stringContaining('over 1 MB (1048576 bytes)'),
    });
    expect(existsSync(path.join(repo.dir, 'big.txt'))).toBe(false);
    const under = await client.callTool({ name: 'write_file', arguments: { path: 'under.txt', content: 'y'.repeat(900_000) } });
    expect(under.isError, textOf(under)).toBeFalsy();
  });

  it('a client that ends its session in the middle of an agent run stops that run, and the server goes on serving the others', async () => {
    const repo = makeTempRepo();
    const openAi = await startScriptedOpenAi({ turns: [{ text: Array.from({ length: 100 }, (_, n) => `piece ${n} `), chunkDelayMs: 100 }] });
    try {
      const env = { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${openAi.url}/v1`, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' };
      const served = await serveHttp(repo, [], env);
      const leaving = await served.connect();
      const run = leaving.callTool({ name: 'agent', arguments: { prompt: 'Take your time.' } }).catch((error: Error) => error);
      await expect.poll(() => openAi.requests.filter((request) => request.kind === 'chat').length, { timeout: 15_000 }).toBe(1);
      await (leaving.transport as StreamableHTTPClientTransport).terminateSession();
      await leaving.close();
      expect(await run).toBeInstanceOf(Error);
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // the run unwinds; its session file is written
      expect(served.child.exitCode, served.stderr()).toBeNull();
      const staying = await served.connect();
      const { resources } = await staying.listResources();
      expect(resources).toHaveLength(1);
      const transcript = (await staying.readResource({ uri: resources[0]!.uri })).contents[0] as { text: string };
      expect(transcript.text).toContain('"kind":"interrupted"');
    } finally {
      await openAi.close();
    }
  });

  it('BEANS_MCP_TOKEN sets the token (not printed); a short one, a bad port or a missing folder is a usage error', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'with my own token\n' });
    const token = 'a'.repeat(20) + '0123456789abcdef';
    const child = spawn(BEANS_BIN, ['mcp', 'serve', '--http', '0'], {
      cwd: repo.dir,
      env: { ...repo.env, BEANS_MCP_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /Beans is serving MCP on (\S+) \(token from BEANS_MCP_TOKEN\)\n/.exec(out);
        if (match) resolve(match[1]!);
      });
    });
    try {
      const client = new Client({ name: 'own-token', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      expect(textOf(await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } }))).toContain('with my own token');
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    for (const [args, env, message] of [
      [['--http', '0'], { BEANS_MCP_TOKEN: 'short' }, /BEANS_MCP_TOKEN must be at least 32 letters/],
      [['--http', '0'], { BEANS_MCP_TOKEN: `${'x'.repeat(40)} spaced` }, /BEANS_MCP_TOKEN must be at least 32 letters/],
      [['--http', 'eighty'], {}, /--http takes a port number/],
      [['--http', '70000'], {}, /--http takes a port number/],
      [['--cwd', 'no-such-folder'], {}, /--cwd no-such-folder: no such folder/],
    ] as const) {
      const run = await runBeans(['mcp', 'serve', ...args], { cwd: repo.dir, env: { ...repo.env, ...env } });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
    }
  });

  it('answers no CORS preflight and sends no CORS headers, and stops on SIGTERM', async () => {
    const repo = makeTempRepo();
    const served = await serveHttp(repo);
    for (const origin of ['http://attacker.example', undefined]) {
      const preflight = await send(served.port, {
        method: 'OPTIONS',
        headers: {
          ...(origin ? { origin } : {}),
          authorization: `Bearer ${served.token}`,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(preflight.status).toBeGreaterThanOrEqual(400);
      expectNoCors(preflight);
    }
    const ok = await send(served.port, { headers: { ...JSON_HEADERS, authorization: `Bearer ${served.token}` }, body: initialize });
    expect(ok.status).toBe(200);
    expectNoCors(ok);
    const exited = new Promise<number | null>((resolve) => served.child.once('exit', (code) => resolve(code)));
    served.child.kill('SIGTERM');
    expect(await exited).toBe(143);
    await expect(send(served.port, { headers: JSON_HEADERS, body: initialize })).rejects.toThrow(/ECONNREFUSED/);
  });
});
