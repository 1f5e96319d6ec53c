// One way in (issue 52): what a person or a program sends becomes a turn through core's one submit
// path, so `@notes.txt` reaches the model with the file's content through every front end: `-p`,
// `query()`, the Claude Agent SDK driving bin/beans, and an ACP editor (the chat: test/tmux/submit.test.ts).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
import { query as sdkQuery, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const MARKER = 'the-notes-marker-7f3a: beans are great';
const PROMPT = '@notes.txt summarize';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function setup(): Promise<{ repo: TempRepo; server: ScriptedServer; env: NodeJS.ProcessEnv }> {
  const repo = makeTempRepo({ 'notes.txt': `${MARKER}\n` });
  const server = await scriptedOllama({ turns: [{ text: 'They say beans are great.' }] });
  servers.push(server);
  return { repo, server, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } };
}

/** The user message of the model's first request: the typed words with the file attached after them. */
function firstUserText(server: ScriptedServer): string {
  const chat = server.requests.find((request) => request.kind === 'chat')!;
  const messages = (chat.body as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((message) => message.role === 'user').at(-1)!.content;
}

describe('@file reaches the model with its content through every front end', () => {
  it('beans -p', async () => {
    const { repo, server, env } = await setup();
    const run = await runBeans(['-p', PROMPT], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('They say beans are great.\n');
    expect(firstUserText(server)).toContain(PROMPT);
    expect(firstUserText(server)).toContain(MARKER);
  });

  it('query() of @beans/core', async () => {
    const { repo, server, env } = await setup();
    const { query } = (await import(path.resolve(import.meta.dirname, '../../packages/core/dist/index.js'))) as typeof import('@beans/core');
    const messages = [];
    for await (const message of query({ prompt: PROMPT, options: { cwd: repo.dir, env, provider: 'ollama', model: 'qwen3' } })) messages.push(message);
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'They say beans are great.' });
    expect(firstUserText(server)).toContain(MARKER);
  });

  it('the Claude Agent SDK driving bin/beans', async () => {
    const { repo, server, env } = await setup();
    const messages: SDKMessage[] = [];
    for await (const message of sdkQuery({ prompt: PROMPT, options: { pathToClaudeCodeExecutable: BEANS_BIN, cwd: repo.dir, env, stderr: () => undefined } })) {
      messages.push(message);
    }
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'They say beans are great.' });
    expect(firstUserText(server)).toContain(MARKER);
  });

  it('an ACP editor (beans acp)', async () => {
    const { repo, server, env } = await setup();
    const child = spawn(BEANS_BIN, ['acp'], { cwd: repo.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const stop = await client({ name: 'test-editor' })
      .onNotification('session/update', () => undefined)
      .connectWith(stream, async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
        const { sessionId } = await ctx.request('session/new', { cwd: repo.dir, mcpServers: [] });
        const answer = await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: PROMPT }] });
        return answer.stopReason;
      });
    child.stdin.end();
    expect(stop).toBe('end_turn');
    expect(await exited).toBe(0);
    expect(firstUserText(server)).toContain(MARKER);
  });
});

describe('session commands answer through every front end without the model', () => {
  it('beans -p /cost prints the usage and asks no model', async () => {
    const { repo, server, env } = await setup();
    const run = await runBeans(['-p', '/cost'], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^tokens: 0 in · 0 out\ncost: /);
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
  });

  it('the Claude Agent SDK gets /context as a successful result', async () => {
    const { repo, server, env } = await setup();
    const messages: SDKMessage[] = [];
    for await (const message of sdkQuery({
      prompt: '/context',
      options: { pathToClaudeCodeExecutable: BEANS_BIN, cwd: repo.dir, env, stderr: () => undefined },
    })) {
      messages.push(message);
    }
    const result = messages.at(-1) as { type: string; subtype: string; result: string };
    expect(result).toMatchObject({ type: 'result', subtype: 'success' });
    expect(result.result).toMatch(/^Context window of qwen3: [\d,]+ tokens/);
    expect(result.result).toMatch(/^Built-in tools: [\d,]+/m);
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
  });

  it('a program cannot run a shell line: `!` from a program is words for the model', async () => {
    const { repo, server, env } = await setup();
    const run = await runBeans(['-p', '!touch pwned.txt'], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    expect(firstUserText(server)).toBe('!touch pwned.txt');
    expect(await import('node:fs').then((fs) => fs.existsSync(path.join(repo.dir, 'pwned.txt')))).toBe(false);
  });
});
