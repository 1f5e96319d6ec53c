// Issue 58, item 1: what the Claude Agent SDK 0.3.332 sends and expects, driven through the real SDK
// against bin/beans: options.agents, mcpServersDelivery 'initialize', in-process servers in status
// and toggle, hook callbacks for every event, UUID session ids with sessionId / forkSession /
// resumeSessionAt, the interrupt message and PostToolUse's tool_response objects.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  createSdkMcpServer,
  query,
  tool,
  type HookCallback,
  type HookEvent,
  type Options,
  type SDKMessage,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { BEANS_BIN, makeTempRepo, scriptedOllama, type TempRepo } from './harness.ts';
import type { RecordedRequest, ScriptOptions, ScriptedServer } from '../support/script.ts';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function writeSettings(repo: TempRepo, settings: unknown): void {
  const file = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings));
}

async function setup(script: ScriptOptions, files: Record<string, string> = {}) {
  const repo = makeTempRepo(files);
  const server = await scriptedOllama(script);
  const stderr: string[] = [];
  const options: Options = {
    pathToClaudeCodeExecutable: BEANS_BIN,
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url },
    stderr: (text) => stderr.push(text),
    // The delivery the SDK says becomes its default; each test that wants argv says so.
    mcpServersDelivery: 'initialize',
  };
  return { repo, server, options, stderr };
}

async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

const results = (messages: SDKMessage[]) => messages.filter((message) => message.type === 'result');
const chats = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat');
type OllamaBody = { model: string; messages: { role: string; content: string }[]; tools?: { function: { name: string; description: string } }[] };
const body = (request: RecordedRequest) => request.body as OllamaBody;
const toolNames = (request: RecordedRequest) => (body(request).tools ?? []).map((declared) => declared.function.name);

function inputStream() {
  const pending: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  return {
    send(text: string) {
      pending.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        if (pending.length > 0) yield pending.shift()!;
        else if (done) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

function calcServer(calls: number[][] = []) {
  return createSdkMcpServer({
    name: 'calc',
    version: '1.0.0',
    tools: [
      tool('add', 'Add two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => {
        calls.push([a, b]);
        return { content: [{ type: 'text', text: String(a + b) }] };
      }),
    ],
  });
}

describe('options.agents (issue 58)', () => {
  it('the task tool offers them, and a call runs with their prompt, tools and model', async () => {
    const isReviewer = (request: RecordedRequest) => body(request).messages[0]?.content.startsWith('You are the reviewer.') === true;
    const { server, options } = await setup({
      models: [
        { name: 'main:latest', capabilities: ['completion', 'tools'] },
        { name: 'small:latest', capabilities: ['completion', 'tools'] },
      ],
      turns: (request, n) =>
        isReviewer(request)
          ? { text: 'LGTM: no bugs.' }
          : n === 0
            ? { toolCalls: [{ name: 'task', args: { description: 'review a.txt', prompt: 'Review a.txt.', subagent_type: 'reviewer' } }] }
            : { text: 'The reviewer found no bugs.' },
    });
    const messages = await collect(
      query({
        prompt: 'have a.txt reviewed',
        options: {
          ...options,
          model: 'main:latest',
          permissionMode: 'bypassPermissions',
          allowDangerouslySkipPermissions: true,
          agents: {
            reviewer: { description: 'Reviews code for bugs.', prompt: 'You are the reviewer. Look for bugs.', tools: ['Read', 'Grep'], model: 'small:latest' },
          },
        },
      }),
    );
    const init = messages.find((message) => message.type === 'system' && message.subtype === 'init') as { agents: string[] };
    expect(init.agents).toContain('reviewer');
    const first = chats(server)[0]!;
    const task = body(first).tools!.find((declared) => declared.function.name === 'task')!;
    expect(task.function.description).toContain('- reviewer: Reviews code for bugs.');
    const child = chats(server).find(isReviewer)!;
    expect(body(child).model).toBe('small:latest');
    expect(toolNames(child).sort()).toEqual(['grep', 'read_file']);
    expect(results(messages)[0]).toMatchObject({ subtype: 'success', result: 'The reviewer found no bugs.' });
  });
});

describe("mcpServersDelivery: 'initialize' and in-process servers (issue 58)", () => {
  it('a process server and an in-process one, delivered in initialize: both start, are in init.mcp_servers and run', { timeout: 60_000 }, async () => {
    const calls: number[][] = [];
    const { repo, server, options } = await setup({
      turns: [
        {
          toolCalls: [
            { name: 'mcp__ev__echo', args: { message: 'hi' } },
            { name: 'mcp__calc__add', args: { a: 2, b: 40 } },
          ],
        },
        { text: 'Both answered.' },
      ],
    });
    writeSettings(repo, { tools: { defer: 'never' } });
    const messages = await collect(
      query({
        prompt: 'use both servers',
        options: {
          ...options,
          mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] }, calc: calcServer(calls) },
          allowedTools: ['mcp__ev__echo', 'mcp__calc__add'],
        },
      }),
    );
    const init = messages.find((message) => message.type === 'system' && message.subtype === 'init') as { mcp_servers: { name: string; status: string }[] };
    expect(init.mcp_servers).toEqual(
      expect.arrayContaining([
        { name: 'ev', status: 'connected' },
        { name: 'calc', status: 'connected' },
      ]),
    );
    expect(toolNames(chats(server)[0]!)).toEqual(expect.arrayContaining(['mcp__ev__echo', 'mcp__calc__add']));
    expect(calls).toEqual([[2, 40]]);
    const toolResults = JSON.stringify(messages.filter((message) => message.type === 'user'));
    expect(toolResults).toContain('Echo: hi');
    expect(results(messages)[0]).toMatchObject({ subtype: 'success', result: 'Both answered.' });
  });

  it('mcpServerStatus() lists the in-process server with its tools; toggleMcpServer() turns it off and on', { timeout: 60_000 }, async () => {
    const { server, options } = await setup({ turns: [{ text: 'one' }, { text: 'two' }, { text: 'three' }] });
    const input = inputStream();
    const q = query({ prompt: input, options: { ...options, mcpServers: { calc: calcServer() } } });
    const statuses: Awaited<ReturnType<typeof q.mcpServerStatus>>[] = [];
    const done = (async () => {
      let count = 0;
      for await (const message of q) {
        if (message.type !== 'result') continue;
        count += 1;
        if (count === 1) {
          statuses.push(await q.mcpServerStatus());
          await q.toggleMcpServer('calc', false);
          statuses.push(await q.mcpServerStatus());
          input.send('second');
        } else if (count === 2) {
          await q.toggleMcpServer('calc', true);
          statuses.push(await q.mcpServerStatus());
          input.send('third');
        } else input.end();
      }
    })();
    input.send('first');
    await done;
    expect(statuses[0]).toEqual([expect.objectContaining({ name: 'calc', status: 'connected', tools: [{ name: 'add' }] })]);
    expect(statuses[1]).toEqual([expect.objectContaining({ name: 'calc', status: 'disabled' })]);
    expect(statuses[2]).toEqual([expect.objectContaining({ name: 'calc', status: 'connected' })]);
    const offered = chats(server).map((request) => toolNames(request).includes('mcp__calc__add'));
    expect(offered).toEqual([true, false, true]);
  });
});

describe('SDK hook callbacks for every event Beans has (issue 58)', () => {
  it(
    'SessionStart, UserPromptSubmit, Pre/PostToolUse (tool objects), Notification, SubagentStop, Stop and PreCompact reach the program; the rest is named once',
    {
      timeout: 60_000,
    },
    async () => {
      const isChild = (request: RecordedRequest) => body(request).messages[0]?.content.startsWith('You are a general-purpose agent') === true;
      const isSummary = (request: RecordedRequest) => !body(request).tools?.length;
      let parentTurns = 0;
      const { repo, options, stderr } = await setup(
        {
          models: [{ name: 'small:latest', capabilities: ['completion', 'tools'], contextLength: 4096 }],
          turns: (request) => {
            if (isSummary(request)) return { text: 'Summary: the user asked for work, and it was done.' };
            if (isChild(request)) return { text: 'child done' };
            parentTurns += 1;
            if (parentTurns === 1)
              return {
                toolCalls: [
                  { name: 'read_file', args: { path: 'a.txt' } },
                  { name: 'shell', args: { command: 'echo from-bash | tee out.txt' } },
                ],
              };
            if (parentTurns === 2)
              return { toolCalls: [{ name: 'task', args: { description: 'help', prompt: 'Help out.', subagent_type: 'general-purpose' } }] };
            return { text: 'done' };
          },
        },
        { 'a.txt': 'alpha\nbeta\n' },
      );
      const seen: { event: string; input: Record<string, unknown> }[] = [];
      const record: HookCallback = async (input) => {
        seen.push({ event: input.hook_event_name, input: input as unknown as Record<string, unknown> });
        return {};
      };
      const events: HookEvent[] = [
        'SessionStart',
        'UserPromptSubmit',
        'PreToolUse',
        'PostToolUse',
        'Notification',
        'SubagentStop',
        'Stop',
        'PreCompact',
        'PostToolUseFailure',
        'SubagentStart',
        'PermissionRequest',
        'SessionEnd',
      ];
      const input = inputStream();
      const q = query({
        prompt: input,
        options: {
          ...options,
          model: 'small:latest',
          hooks: Object.fromEntries(events.map((event) => [event, [{ hooks: [record] }]])),
          // Asked for the shell call (Read is free): Notification hooks hear of the question.
          canUseTool: async (_name, toolInput) => ({ behavior: 'allow', updatedInput: toolInput }),
        },
      });
      const done = (async () => {
        let count = 0;
        for await (const message of q) {
          if (message.type !== 'result') continue;
          count += 1;
          // The second prompt is large: the window of 4096 tokens makes Beans compact first.
          if (count === 1) input.send(`now this: ${'a long line of text to fill the context window. '.repeat(250)}`);
          else input.end();
        }
      })();
      input.send('read a.txt, run a command, then ask a helper');
      await done;
      const names = new Set(seen.map((entry) => entry.event));
      for (const event of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Notification', 'SubagentStop', 'Stop', 'PreCompact'])
        expect(names, `no ${event} callback`).toContain(event);
      const first = (event: string, tool?: string) => seen.find((entry) => entry.event === event && (!tool || entry.input.tool_name === tool))!.input;
      expect(first('SessionStart')).toMatchObject({ source: 'startup', cwd: repo.dir });
      expect(first('UserPromptSubmit')).toMatchObject({ prompt: 'read a.txt, run a command, then ask a helper' });
      expect(first('Notification')).toMatchObject({ message: expect.stringContaining('Bash') });
      expect(first('SubagentStop')).toMatchObject({ agent_type: 'general-purpose' });
      expect(first('PreCompact')).toMatchObject({ trigger: 'auto' });
      // Claude Code passes the tool's output object, not the text the model read.
      expect(first('PostToolUse', 'Read').tool_response).toEqual({
        type: 'text',
        file: { filePath: path.join(repo.dir, 'a.txt'), content: 'alpha\nbeta', numLines: 2, startLine: 1, totalLines: 2 },
      });
      expect(first('PostToolUse', 'Bash').tool_response).toMatchObject({ stdout: expect.stringContaining('from-bash'), stderr: '', interrupted: false });
      const named = stderr
        .join('')
        .split('\n')
        .filter((line) => line.includes('hook callbacks are not run'));
      expect(named).toHaveLength(1);
      for (const event of ['PostToolUseFailure', 'SubagentStart', 'PermissionRequest', 'SessionEnd']) expect(named[0]).toContain(event);
    },
  );
});

describe('SDK hook answers act as in Claude Code (issue 58)', () => {
  it("SessionStart's and UserPromptSubmit's additionalContext reach the model; Stop's block gives it another turn with the reason", async () => {
    const { server, options } = await setup({ turns: [{ text: 'first answer' }, { text: 'goodbye' }] });
    let stops = 0;
    const answer =
      (output: Record<string, unknown>): HookCallback =>
      async () =>
        output;
    const messages = await collect(
      query({
        prompt: 'say hello',
        options: {
          ...options,
          hooks: {
            SessionStart: [{ hooks: [answer({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'session-context-marker' } })] }],
            UserPromptSubmit: [{ hooks: [answer({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'prompt-context-marker' } })] }],
            Stop: [{ hooks: [async () => ((stops += 1) === 1 ? { decision: 'block', reason: 'also-say-goodbye' } : {})] }],
          },
        },
      }),
    );
    const [first, second] = chats(server).map((request) => JSON.stringify(body(request).messages));
    expect(first).toContain('session-context-marker');
    expect(first).toContain('prompt-context-marker');
    expect(second).toContain('also-say-goodbye');
    expect(stops).toBe(2);
    expect(results(messages)[0]).toMatchObject({ subtype: 'success', result: 'goodbye' });
  });

  it("UserPromptSubmit's block keeps the prompt from the model", async () => {
    const { server, options } = await setup({ turns: [{ text: 'should not be asked' }] });
    const messages = await collect(
      query({
        prompt: 'a prompt the program refuses',
        options: { ...options, hooks: { UserPromptSubmit: [{ hooks: [async () => ({ decision: 'block', reason: 'not this prompt' })] }] } },
      }),
    );
    expect(chats(server)).toHaveLength(0);
    expect(JSON.stringify(messages)).not.toContain('should not be asked');
  });
});

describe('session ids (issue 58)', () => {
  it('new sessions get UUIDs; sessionId names one; forkSession copies into a new one; resumeSessionAt drops what followed', { timeout: 60_000 }, async () => {
    const { server, options } = await setup({ turns: (_request, n) => ({ text: `answer ${n + 1}` }) });
    const plain = await collect(query({ prompt: 'one', options }));
    expect(plain[0]!.session_id).toMatch(UUID);

    const chosen = '6f1c2a4e-9b7d-4c3e-8a51-2d9e7f0b6c11';
    const first = await collect(query({ prompt: 'first question', options: { ...options, sessionId: chosen } }));
    expect(new Set(first.map((message) => message.session_id))).toEqual(new Set([chosen]));
    const second = await collect(query({ prompt: 'second question', options: { ...options, resume: chosen } }));
    expect(second[0]!.session_id).toBe(chosen);
    const firstAnswer = first.find((message) => message.type === 'assistant')!;
    expect(firstAnswer.uuid).toMatch(UUID);

    const fork = 'c0ffee00-1234-4abc-9def-000000000001';
    const forked = await collect(query({ prompt: 'in the fork', options: { ...options, resume: chosen, forkSession: true, sessionId: fork } }));
    expect(forked[0]!.session_id).toBe(fork);
    const history = (request: RecordedRequest) =>
      body(request)
        .messages.filter((message) => message.role !== 'system')
        .map((message) => message.content);
    expect(history(chats(server).at(-1)!)).toEqual(['first question', 'answer 1', 'second question', 'answer 2', 'in the fork']);
    // The original did not take the fork's turn.
    const again = await collect(query({ prompt: 'back in the original', options: { ...options, resume: chosen } }));
    expect(again[0]!.session_id).toBe(chosen);
    expect(history(chats(server).at(-1)!)).toEqual(['first question', 'answer 1', 'second question', 'answer 2', 'back in the original']);

    // resumeSessionAt: the conversation goes on after the first answer, without what followed it.
    const at = await collect(query({ prompt: 'after the first answer', options: { ...options, resume: chosen, resumeSessionAt: firstAnswer.uuid } }));
    expect(results(at)[0]).toMatchObject({ subtype: 'success' });
    expect(history(chats(server).at(-1)!)).toEqual(['first question', 'answer 1', 'after the first answer']);
    const later = await collect(query({ prompt: 'and later', options: { ...options, resume: chosen } }));
    expect(results(later)[0]).toMatchObject({ subtype: 'success' });
    expect(history(chats(server).at(-1)!)).toEqual(['first question', 'answer 1', 'after the first answer', 'answer 2', 'and later']);
  });

  it('an old time-stamped session id still resumes', async () => {
    const { repo, server, options } = await setup({ turns: [{ text: 'remembered' }, { text: 'still here' }] });
    const first = await collect(query({ prompt: 'keep this', options }));
    // The file renamed and its header rewritten to the id format of earlier Beans versions.
    const old = '2026-11-28T20-40-03-a89c55';
    const file = execFileSync('find', [repo.home, '-name', `${first[0]!.session_id}.jsonl`], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(path.dirname(file), `${old}.jsonl`), readFileSync(file, 'utf8').replaceAll(first[0]!.session_id, old));
    const resumed = await collect(query({ prompt: 'and now?', options: { ...options, resume: old } }));
    expect(resumed[0]!.session_id).toBe(old);
    expect(results(resumed)[0]).toMatchObject({ subtype: 'success', result: 'still here' });
    expect(chats(server).at(-1)!.body).toMatchObject({ messages: expect.arrayContaining([expect.objectContaining({ content: 'keep this' })]) });
  });
});

describe('interrupt() (issue 58)', () => {
  it('sends "[Request interrupted by user]" as a user message before the error result, as Claude Code does', async () => {
    const { options } = await setup({ turns: [{ text: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 400 }, { text: 'after' }] });
    const input = inputStream();
    input.send('count slowly');
    const run = query({ prompt: input, options: { ...options, includePartialMessages: true } });
    const seen: SDKMessage[] = [];
    let interrupted = false;
    for await (const message of run) {
      seen.push(message);
      if (!interrupted && message.type === 'stream_event' && message.event.type === 'content_block_delta') {
        interrupted = true;
        await run.interrupt();
      }
      if (message.type === 'result') input.end();
    }
    const resultAt = seen.findIndex((message) => message.type === 'result');
    const marker = seen.findIndex(
      (message) =>
        message.type === 'user' &&
        Array.isArray(message.message.content) &&
        message.message.content.some((block) => block.type === 'text' && block.text === '[Request interrupted by user]'),
    );
    expect(marker).toBeGreaterThan(-1);
    expect(marker).toBeLessThan(resultAt);
    expect(seen[resultAt]).toMatchObject({ subtype: 'error_during_execution' });
  });

  it('during a tool call, the message is "[Request interrupted by user for tool use]"', async () => {
    const { options } = await setup({ turns: [{ toolCalls: [{ name: 'shell', args: { command: 'sleep 20' } }] }, { text: 'after' }] });
    const input = inputStream();
    input.send('wait a while');
    const run = query({ prompt: input, options: { ...options, permissionMode: 'bypassPermissions' } });
    const seen: SDKMessage[] = [];
    let interrupted = false;
    for await (const message of run) {
      seen.push(message);
      if (!interrupted && message.type === 'assistant' && message.message.content.some((block) => block.type === 'tool_use')) {
        interrupted = true;
        // The command has started by now (or starts in a moment): the interrupt comes while it runs.
        await new Promise((resolve) => setTimeout(resolve, 500));
        await run.interrupt();
      }
      if (message.type === 'result') input.end();
    }
    const texts = seen.flatMap((message) =>
      message.type === 'user' && Array.isArray(message.message.content)
        ? message.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
        : [],
    );
    expect(texts).toContain('[Request interrupted by user for tool use]');
    expect(texts).not.toContain('[Request interrupted by user]');
  });
});
