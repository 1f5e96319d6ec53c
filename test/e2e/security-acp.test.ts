// Issue 53 item 8, the editor's side: `beans acp` given one huge line, and a model's write outside
// the workspace, which the editor must never be asked to approve.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { client, ndJsonStream, type RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { ScriptedServer, ScriptTurn } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo } from './harness.ts';

const children: ChildProcessWithoutNullStreams[] = [];
const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const server of servers.splice(0)) await server.close();
});

const INITIALIZE = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;

/** `beans acp` on raw pipes: every stdout line parsed, stderr kept, the peak memory of the process. */
function rawAcp(cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(BEANS_BIN, ['acp'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const messages: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (let newline = stdout.indexOf('\n'); newline !== -1; newline = stdout.indexOf('\n')) {
      messages.push(JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>);
      stdout = stdout.slice(newline + 1);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      // gone
    }
  }, 50);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => (clearInterval(sampler), resolve(code))));
  /** Writes `bytes` of one JSON-RPC request line (id `id`) in 1 MB pieces, waiting for the pipe. */
  const writeHugeLine = async (id: number, bytes: number, newline = true) => {
    const head = `{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"`;
    const piece = 'A'.repeat(1 << 20);
    const write = (text: string) => new Promise<void>((resolve) => (child.stdin.write(text) ? resolve() : child.stdin.once('drain', () => resolve())));
    await write(head);
    for (let sent = head.length; sent < bytes; sent += piece.length) await write(piece);
    await write(`"}]}}${newline ? '\n' : ''}`);
  };
  const waitFor = async (check: () => boolean, what: string, timeoutMs = 60_000) => {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stdout messages: ${JSON.stringify(messages).slice(0, 500)}; stderr: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, messages, stderr: () => stderr, peakMb: () => peakKb / 1024, exited, writeHugeLine, waitFor };
}

describe('beans acp and one huge line', () => {
  for (const where of ['first', 'after initialize'] as const) {
    it(`answers a 200 MB line (${where}) with a JSON-RPC error and a stderr line, and keeps serving`, async () => {
      const repo = makeTempRepo();
      const acp = rawAcp(repo.dir, repo.env);
      if (where === 'after initialize') {
        acp.child.stdin.write(INITIALIZE(1));
        await acp.waitFor(() => acp.messages.some((message) => message.id === 1), 'the first initialize answer');
      }
      await acp.writeHugeLine(7, 200 * 1024 * 1024);
      // The next request is answered: initialize (first), or a session listing (after it).
      const next = where === 'first' ? INITIALIZE(8) : `${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'session/list', params: { cwd: repo.dir } })}\n`;
      acp.child.stdin.write(next);
      await acp.waitFor(() => acp.messages.some((message) => message.id === 8), 'the answer to the request after the huge line');
      const error = acp.messages.find((message) => message.id === 7);
      expect(error).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringMatching(/larger than/) } });
      expect(acp.messages.find((message) => message.id === 8)).toMatchObject({ result: where === 'first' ? { protocolVersion: 1 } : { sessions: [] } });
      expect(acp.stderr()).toMatch(/^beans: .*200 MB|^beans: .*larger than/m);
      acp.child.stdin.end();
      expect(await acp.exited).toBe(0);
      // The line is dropped as it arrives, never held whole.
      expect(acp.peakMb()).toBeLessThan(400);
    }, 120_000);
  }

  it('a huge last line with no newline before the end of input is answered too', async () => {
    const repo = makeTempRepo();
    const acp = rawAcp(repo.dir, repo.env);
    await acp.writeHugeLine(3, 64 * 1024 * 1024, false);
    acp.child.stdin.end();
    const code = await acp.exited;
    expect(acp.messages).toEqual([expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32600 }) })]);
    expect(acp.stderr()).toContain('beans: ');
    expect(code).toBe(0);
  }, 120_000);
});

describe('a write outside the workspace, in an editor', () => {
  it('is refused before the editor is asked, whatever the path looks like', async () => {
    const repo = makeTempRepo({ 'a.txt': 'a\n' });
    const outside = path.join(path.dirname(repo.dir), 'outside.txt');
    const turns: ScriptTurn[] = [
      {
        toolCalls: [
          { name: 'write_file', args: { path: '../outside.txt', content: 'x' }, id: 'w1' },
          { name: 'write_file', args: { path: outside, content: 'x' }, id: 'w2' },
          { name: 'edit_file', args: { path: '../outside.txt', old_string: '', new_string: 'x' }, id: 'e1' },
          { name: 'write_file', args: { path: '~/planted.txt', content: 'x' }, id: 'w3' },
          { name: 'notebook_edit', args: { path: '../n.ipynb', new_source: 'x', edit_mode: 'insert', cell_type: 'code' }, id: 'n1' },
          { name: 'write_file', args: { path: 'inside.txt', content: 'fine' }, id: 'w4' },
        ],
      },
      { text: 'Done.' },
    ];
    const server = await startScriptedOpenAi({ turns });
    servers.push(server);
    const env = { ...repo.env, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1`, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' };
    const child = spawn(BEANS_BIN, ['acp'], { cwd: repo.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    const asked: RequestPermissionRequest[] = [];
    const app = client({ name: 'test-editor' }).onRequest('session/request_permission', ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
    });
    const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    await app.connectWith(stream, async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-editor', version: '1' } });
      const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
      await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write things' }] });
    });
    child.stdin.end();
    // Only the write inside the workspace was put to the person.
    expect(asked.map((request) => (request.toolCall.rawInput as { path?: string }).path)).toEqual(['inside.txt']);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(path.join(repo.home, 'planted.txt'))).toBe(false);
    expect(readFileSync(path.join(repo.dir, 'inside.txt'), 'utf8')).toBe('fine');
    const results = server.requests
      .filter((request) => request.kind === 'chat')
      .flatMap((request) => (request.body as { messages: { role: string; content: string }[] }).messages.filter((message) => message.role === 'tool'));
    expect(
      results.map((message) => message.content).filter((content) => /outside the workspace/.test(content)),
      JSON.stringify(results),
    ).toHaveLength(5);
  }, 60_000);
});
