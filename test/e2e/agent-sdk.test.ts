// The real Claude Agent SDK drives bin/beans as its CLI (pathToClaudeCodeExecutable), against a
// scripted Ollama. Each test asserts on what the SDK yields, the way an SDK program would.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createSdkMcpServer, query, tool, type Options, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { BEANS_BIN, makeTempRepo, scriptedOllama, type TempRepo } from './harness.ts';
import type { ScriptOptions, ScriptedServer } from '../support/script.ts';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const memory = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');

function writeSettings(repo: TempRepo, settings: unknown): void {
  const file = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings));
}

async function setup(script: ScriptOptions, files: Record<string, string> = {}): Promise<{ repo: TempRepo; server: ScriptedServer; options: Options }> {
  const repo = makeTempRepo(files);
  const server = await scriptedOllama(script);
  const options: Options = { pathToClaudeCodeExecutable: BEANS_BIN, cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, stderr: () => undefined };
  return { repo, server, options };
}

async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

const results = (messages: SDKMessage[]) => messages.filter((message) => message.type === 'result');
const chats = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat');

/** SDK user messages fed one at a time by the test. */
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

describe('the Claude Agent SDK drives bin/beans', () => {
  it('a single prompt: init, the answer, a success result, and the process exits', async () => {
    const { options } = await setup({ turns: [{ text: 'Hello from Beans.' }] });
    const messages = await collect(query({ prompt: 'say hello', options }));
    expect(messages[0]).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'default' });
    const result = results(messages)[0]!;
    expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'Hello from Beans.', num_turns: 1 });
  });

  it('outputFormat json_schema: an invalid first answer is retried and the result carries structured_output', async () => {
    const { server, options } = await setup({ turns: [{ text: '{"answer": "forty-two"}' }, { text: '{"answer": 42}' }] });
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const messages = await collect(query({ prompt: 'the answer?', options: { ...options, outputFormat: { type: 'json_schema', schema } } }));
    const result = results(messages)[0]!;
    expect(result).toMatchObject({ subtype: 'success', is_error: false, result: '{"answer": 42}', structured_output: { answer: 42 } });
    expect(chats(server)).toHaveLength(2);
  });

  it('canUseTool is asked in Claude Code vocabulary: a Write allowed, a Bash denied', async () => {
    const { repo, options } = await setup({
      turns: [
        { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'from beans\n' } }] },
        { toolCalls: [{ name: 'shell', args: { command: 'touch ran.txt' } }] },
        { text: 'All done.' },
      ],
    });
    const asked: { name: string; input: Record<string, unknown> }[] = [];
    const messages = await collect(
      query({
        prompt: 'write notes and run a command',
        options: {
          ...options,
          canUseTool: async (name, input) => {
            asked.push({ name, input });
            return name === 'Write' ? { behavior: 'allow', updatedInput: input } : { behavior: 'deny', message: 'No commands, please.' };
          },
        },
      }),
    );
    expect(asked).toEqual([
      { name: 'Write', input: { file_path: path.join(repo.dir, 'notes.txt'), content: 'from beans\n' } },
      { name: 'Bash', input: { command: 'touch ran.txt' } },
    ]);
    expect(readFileSync(path.join(repo.dir, 'notes.txt'), 'utf8')).toBe('from beans\n');
    expect(existsSync(path.join(repo.dir, 'ran.txt'))).toBe(false);
    const result = results(messages)[0]!;
    expect(result).toMatchObject({ subtype: 'success', result: 'All done.' });
    expect(result.permission_denials.map((denial) => [denial.tool_name, denial.tool_input])).toEqual([['Bash', { command: 'touch ran.txt' }]]);
  });

  it('streaming input: two user messages in one process, one session', async () => {
    const { server, options } = await setup({ turns: [{ text: 'first answer' }, { text: 'second answer' }] });
    const input = inputStream();
    input.send('first question');
    const seen: SDKMessage[] = [];
    for await (const message of query({ prompt: input, options })) {
      seen.push(message);
      if (message.type === 'result' && results(seen).length === 1) input.send('second question');
      else if (message.type === 'result') input.end();
    }
    expect(results(seen).map((result) => result.type === 'result' && result.subtype === 'success' && result.result)).toEqual(['first answer', 'second answer']);
    expect(new Set(seen.map((message) => message.session_id)).size).toBe(1);
    const second = chats(server)[1]!.body as { messages: { role: string; content: string }[] };
    expect(second.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['first question', 'first answer', 'second question']);
  });

  it('interrupt() stops a turn in flight; the SDK gets an error result and the next turn works', async () => {
    const { options } = await setup({ turns: [{ text: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 400 }, { text: 'after the interrupt' }] });
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
      if (message.type === 'result' && results(seen).length === 1) input.send('go on');
      else if (message.type === 'result') input.end();
    }
    const [first, second] = results(seen);
    expect(first).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(second).toMatchObject({ subtype: 'success', result: 'after the interrupt' });
  });

  it('setModel() and setPermissionMode() change the next turn', async () => {
    const { repo, server, options } = await setup({
      turns: (_request, n) =>
        n === 0 ? { text: 'ready' } : n === 1 ? { toolCalls: [{ name: 'write_file', args: { path: 'auto.txt', content: 'x' } }] } : { text: 'written' },
      models: [
        { name: 'first:latest', capabilities: ['completion', 'tools'] },
        { name: 'second:latest', capabilities: ['completion', 'tools'] },
      ],
    });
    const input = inputStream();
    input.send('hello');
    const run = query({ prompt: input, options: { ...options, model: 'first:latest' } });
    const seen: SDKMessage[] = [];
    for await (const message of run) {
      seen.push(message);
      if (message.type === 'result' && results(seen).length === 1) {
        await run.setModel('second:latest');
        await run.setPermissionMode('acceptEdits');
        input.send('write auto.txt');
      } else if (message.type === 'result') input.end();
    }
    expect(chats(server).map((request) => (request.body as { model: string }).model)).toEqual(['first:latest', 'second:latest', 'second:latest']);
    expect(readFileSync(path.join(repo.dir, 'auto.txt'), 'utf8')).toBe('x');
    expect(seen.some((message) => message.type === 'system' && message.subtype === 'status' && message.permissionMode === 'acceptEdits')).toBe(true);
  });

  it('a PreToolUse hook callback that denies keeps the command from running, even with bypassPermissions', async () => {
    const { repo, options } = await setup(
      { turns: [{ toolCalls: [{ name: 'shell', args: { command: 'rm -rf important' } }] }, { text: 'I was stopped.' }] },
      { 'important/keep.txt': 'keep\n' },
    );
    const payloads: Record<string, unknown>[] = [];
    const messages = await collect(
      query({
        prompt: 'clean up',
        options: {
          ...options,
          permissionMode: 'bypassPermissions',
          allowDangerouslySkipPermissions: true,
          hooks: {
            PreToolUse: [
              {
                matcher: 'Bash',
                hooks: [
                  async (input) => {
                    payloads.push(input as unknown as Record<string, unknown>);
                    return {
                      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'rm -rf is not allowed here' },
                    };
                  },
                ],
              },
            ],
          },
        },
      }),
    );
    expect(existsSync(path.join(repo.dir, 'important', 'keep.txt'))).toBe(true);
    expect(payloads[0]).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf important' }, cwd: repo.dir });
    const toolResult = JSON.stringify(messages.filter((message) => message.type === 'user'));
    expect(toolResult).toContain('rm -rf is not allowed here');
    expect(results(messages)[0]).toMatchObject({ subtype: 'success', result: 'I was stopped.' });
  });

  it('an in-process MCP server made with createSdkMcpServer: its tool becomes mcp__calc__add and runs in the program', async () => {
    const { server, options } = await setup({
      turns: [{ toolCalls: [{ name: 'mcp__calc__add', args: { a: 2, b: 40 } }] }, { text: 'The sum is 42.' }],
    });
    const calls: number[][] = [];
    const calc = createSdkMcpServer({
      name: 'calc',
      version: '1.0.0',
      tools: [
        tool('add', 'Add two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push([a, b]);
          return { content: [{ type: 'text', text: String(a + b) }] };
        }),
      ],
    });
    const messages = await collect(query({ prompt: 'add 2 and 40', options: { ...options, mcpServers: { calc }, allowedTools: ['mcp__calc__add'] } }));
    expect(calls).toEqual([[2, 40]]);
    const declared = (chats(server)[0]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(declared).toContain('mcp__calc__add');
    expect(JSON.stringify(messages.filter((message) => message.type === 'user'))).toContain('"42"');
    expect(results(messages)[0]).toMatchObject({ subtype: 'success', result: 'The sum is 42.' });
  });

  it('includePartialMessages yields stream_event messages before the whole assistant message', async () => {
    const { options } = await setup({ turns: [{ text: ['Hel', 'lo'] }] });
    const messages = await collect(query({ prompt: 'hi', options: { ...options, includePartialMessages: true } }));
    const events = messages.flatMap((message) => (message.type === 'stream_event' ? [message.event.type] : []));
    expect(events).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const firstAssistant = messages.findIndex((message) => message.type === 'assistant');
    expect(messages.findIndex((message) => message.type === 'stream_event')).toBeLessThan(firstAssistant);
  });

  it("every message speaks Claude Code's tool vocabulary: init's tools, tool_use Write with file_path, also after resume", async () => {
    const { repo, options } = await setup({
      turns: [
        { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'a\n' } }] },
        { text: 'wrote a' },
        {
          toolCalls: [
            { name: 'read_file', args: { path: 'a.txt' } },
            { name: 'list_directory', args: {} },
          ],
        },
        { text: 'read a' },
      ],
    });
    const bypass: Options = { ...options, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true };
    const toolUses = (messages: SDKMessage[]) =>
      messages.flatMap((m) => (m.type === 'assistant' ? m.message.content.filter((b) => b.type === 'tool_use').map((b) => [b.name, b.input]) : []));
    const first = await collect(query({ prompt: 'write a', options: bypass }));
    const init = first.find((m) => m.type === 'system' && m.subtype === 'init') as { tools: string[] };
    expect(init.tools).toEqual(expect.arrayContaining(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep', 'LS', 'TodoWrite', 'WebFetch']));
    expect(init.tools.filter((name) => /_/.test(name) && !name.startsWith('mcp__'))).toEqual([]);
    expect(toolUses(first)).toEqual([['Write', { file_path: path.join(repo.dir, 'a.txt'), content: 'a\n' }]]);
    const second = await collect(query({ prompt: 'read a', options: { ...bypass, resume: first[0]!.session_id } }));
    expect(toolUses(second)).toEqual([
      ['Read', { file_path: path.join(repo.dir, 'a.txt') }],
      ['LS', { path: repo.dir }],
    ]);
    // Tool results answer those ids.
    const resultIds = second.flatMap((m) =>
      m.type === 'user' && Array.isArray(m.message.content) ? m.message.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : [],
    );
    expect(resultIds).toHaveLength(2);
  });

  it('maxThinkingTokens reaches the provider: a budget turns Ollama think on, 0 turns it off', async () => {
    const on = await setup({ turns: [{ text: 'ok' }] });
    await collect(query({ prompt: 'hi', options: { ...on.options, maxThinkingTokens: 3000 } }));
    expect((chats(on.server)[0]!.body as { think?: boolean }).think).toBe(true);
    const off = await setup({ turns: [{ text: 'ok' }] });
    const messages = await collect(query({ prompt: 'hi', options: { ...off.options, maxThinkingTokens: 0 } }));
    expect(results(messages)[0]).toMatchObject({ subtype: 'success' });
    expect((chats(off.server)[0]!.body as { think?: boolean }).think).toBe(false);
  });

  it('setMaxThinkingTokens() changes the next turn: 0 turns Ollama think off, a budget on again', async () => {
    const { server, options } = await setup({ turns: [{ text: 'one' }, { text: 'two' }, { text: 'three' }] });
    const input = inputStream();
    const q = query({ prompt: input, options });
    const seen: SDKMessage[] = [];
    const done = (async () => {
      for await (const message of q) {
        seen.push(message);
        if (message.type !== 'result') continue;
        const count = results(seen).length;
        if (count === 1) {
          await q.setMaxThinkingTokens(0);
          input.send('second');
        } else if (count === 2) {
          await q.setMaxThinkingTokens(4000);
          input.send('third');
        } else input.end();
      }
    })();
    input.send('first');
    await done;
    expect(chats(server).map((request) => (request.body as { think?: boolean }).think)).toEqual([undefined, false, true]);
  });

  it('mcpServerStatus() answers with each configured server: a command that cannot start is failed with its error', async () => {
    const { options } = await setup({ turns: [{ text: 'ok' }] });
    const input = inputStream();
    const q = query({ prompt: input, options: { ...options, mcpServers: { broken: { command: '/nonexistent/mcp-server' } } } });
    let statuses: Awaited<ReturnType<typeof q.mcpServerStatus>> | undefined;
    input.send('hi');
    for await (const message of q) {
      if (message.type === 'system' && message.subtype === 'init') continue;
      if (message.type !== 'result') continue;
      statuses = await q.mcpServerStatus();
      input.end();
    }
    expect(statuses).toEqual([expect.objectContaining({ name: 'broken', status: 'failed', error: expect.any(String), tools: [] })]);
  });

  it("toggleMcpServer(), reconnectMcpServer() and setMcpServers() change the servers and the next request's tools", { timeout: 90_000 }, async () => {
    const { repo, server, options } = await setup({ turns: [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }] });
    // Every MCP tool declared (not deferred), so each request's tool list shows what is offered.
    writeSettings(repo, { tools: { defer: 'never' } });
    const input = inputStream();
    const q = query({ prompt: input, options: { ...options, mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } } } });
    const seen: { statuses: Awaited<ReturnType<typeof q.mcpServerStatus>>; set?: Awaited<ReturnType<typeof q.setMcpServers>> }[] = [];
    let failure: unknown;
    const done = (async () => {
      for await (const message of q) {
        if (message.type !== 'result') continue;
        const count = seen.length + 1;
        if (count === 1) {
          await q.toggleMcpServer('ev', false);
          seen.push({ statuses: await q.mcpServerStatus() });
          input.send('second');
        } else if (count === 2) {
          await q.toggleMcpServer('ev', true);
          await q.reconnectMcpServer('ev');
          failure = await q.reconnectMcpServer('nope').then(
            () => undefined,
            (error: unknown) => error,
          );
          const set = await q.setMcpServers({
            mem: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(repo.home, 'memory.jsonl') } },
          });
          seen.push({ statuses: await q.mcpServerStatus(), set });
          input.send('third');
        } else if (count === 3) {
          const set = await q.setMcpServers({});
          seen.push({ statuses: await q.mcpServerStatus(), set });
          input.send('fourth');
        } else input.end();
      }
    })();
    input.send('first');
    await done;
    const tools = chats(server).map((request) =>
      ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name),
    );
    const mcp = tools.map((names) => names.filter((name) => name.startsWith('mcp__')));
    const builtin = tools.map((names) => names.filter((name) => !name.startsWith('mcp__')));
    expect(mcp[0]).toEqual(expect.arrayContaining(['mcp__ev__echo', 'mcp__ev__get-sum']));
    // Disabled: its tools leave the next request and nothing else changes.
    expect(seen[0]!.statuses).toEqual([{ name: 'ev', status: 'disabled', tools: [] }]);
    expect(mcp[1]).toEqual([]);
    expect(builtin[1]).toEqual(builtin[0]);
    const system = (index: number) => (chats(server)[index]!.body as { messages: { role: string; content: string }[] }).messages[0];
    expect(system(1)).toEqual(system(0));
    // Enabled and reconnected, and a server added: both servers' tools are offered.
    expect(String(failure)).toContain('no MCP server named "nope"');
    expect(seen[1]!.set).toEqual({ added: ['mem'], removed: [], errors: {} });
    expect(seen[1]!.statuses.map((status) => [status.name, status.status])).toEqual([
      ['ev', 'connected'],
      ['mem', 'connected'],
    ]);
    expect(mcp[2]).toEqual(expect.arrayContaining(['mcp__ev__echo', 'mcp__mem__read_graph']));
    // An empty set removes what setMcpServers added; the server the session started with stays.
    expect(seen[2]!.set).toEqual({ added: [], removed: ['mem'], errors: {} });
    expect(seen[2]!.statuses.map((status) => status.name)).toEqual(['ev']);
    expect(mcp[3]!.some((name) => name.startsWith('mcp__mem__'))).toBe(false);
    expect(mcp[3]).toEqual(expect.arrayContaining(['mcp__ev__echo']));
  });

  it('a background subagent: Task with run_in_background returns a task id at once, TaskOutput reads its answer', { timeout: 60_000 }, async () => {
    const child = (request: { body: unknown }) =>
      ((request.body as { messages: { role: string; content: string }[] }).messages[0]?.content ?? '').startsWith('You are a general-purpose agent');
    const { server, options } = await setup({
      turns: (request, n) => {
        if (child(request)) return { text: ['The answer ', 'is ', '42.'], chunkDelayMs: 1_000 };
        if (n === 0)
          return {
            toolCalls: [
              { name: 'task', args: { description: 'find the answer', prompt: 'Find the answer.', subagent_type: 'general-purpose', run_in_background: true } },
            ],
          };
        if (n === 1) return { toolCalls: [{ name: 'shell_output', args: { task_id: 'bg-1', wait_ms: 20_000 } }] };
        return { text: 'The helper found 42.' };
      },
    });
    const messages = await collect(query({ prompt: 'ask a helper', options: { ...options, permissionMode: 'bypassPermissions' } }));
    const uses = messages.flatMap((message) => (message.type === 'assistant' ? message.message.content : [])).filter((block) => block.type === 'tool_use') as {
      name: string;
      input: Record<string, unknown>;
    }[];
    expect(uses.map((use) => use.name)).toEqual(['Task', 'TaskOutput']);
    expect(uses[0]!.input).toMatchObject({ subagent_type: 'general-purpose', run_in_background: true });
    expect(uses[1]!.input).toEqual({ task_id: 'bg-1', timeout: 20_000 });
    const toolResults = messages
      .flatMap((message) => (message.type === 'user' && Array.isArray(message.message.content) ? message.message.content : []))
      .map((block) => JSON.stringify(block));
    expect(toolResults[0]).toContain('Started the agent in the background as task bg-1');
    expect(toolResults[1]).toContain('Task bg-1: exited with code 0');
    expect(toolResults[1]).toContain('The answer is 42.');
    expect(results(messages)[0]).toMatchObject({ subtype: 'success', result: 'The helper found 42.' });
    // Claude Code's task events bracket the child's run.
    const events = messages.filter((message) => message.type === 'system' && (message.subtype === 'task_started' || message.subtype === 'task_notification'));
    expect(events).toEqual([
      expect.objectContaining({ subtype: 'task_started', task_id: 'bg-1', task_type: 'local_agent', description: 'general-purpose: find the answer' }),
      expect.objectContaining({
        subtype: 'task_notification',
        task_id: 'bg-1',
        status: 'completed',
        summary: 'general-purpose: find the answer exited with code 0',
      }),
    ]);
    // The parent went on (its TaskOutput request) while the child was still answering: the child's
    // answer takes 3 s; the parent's next request comes within a few hundred ms, more under load.
    const parentSecond = chats(server).filter((request) => !child(request))[1]!;
    expect(parentSecond.time - chats(server).find(child)!.time).toBeLessThan(2_500);
  });

  it('stopTask() stops a background subagent that is still working; its task_notification says stopped', { timeout: 60_000 }, async () => {
    const child = (request: { body: unknown }) =>
      ((request.body as { messages: { role: string; content: string }[] }).messages[0]?.content ?? '').startsWith('You are a general-purpose agent');
    const { options } = await setup({
      turns: (request, n) => {
        if (child(request)) return { text: ['slow ', 'slow ', 'slow'], chunkDelayMs: 10_000 };
        return n === 0
          ? {
              toolCalls: [
                { name: 'task', args: { description: 'take long', prompt: 'Take long.', subagent_type: 'general-purpose', run_in_background: true } },
              ],
            }
          : { text: 'Started it.' };
      },
    });
    const input = inputStream();
    const q = query({ prompt: input, options: { ...options, permissionMode: 'bypassPermissions' } });
    const seen: SDKMessage[] = [];
    const started = Date.now();
    input.send('start a helper');
    for await (const message of q) {
      seen.push(message);
      if (message.type === 'result') await q.stopTask('bg-1');
      if (message.type === 'system' && message.subtype === 'task_notification') input.end();
    }
    expect(seen.find((message) => message.type === 'system' && message.subtype === 'task_notification')).toMatchObject({ task_id: 'bg-1', status: 'stopped' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('resume continues a stored session', async () => {
    const { server, options } = await setup({ turns: [{ text: 'remembered: blue' }, { text: 'you said blue' }] });
    const first = await collect(query({ prompt: 'my colour is blue', options }));
    const sessionId = first[0]!.session_id;
    const second = await collect(query({ prompt: 'what was my colour?', options: { ...options, resume: sessionId } }));
    expect(second[0]!.session_id).toBe(sessionId);
    expect(results(second)[0]).toMatchObject({ subtype: 'success', result: 'you said blue' });
    const history = (chats(server)[1]!.body as { messages: { role: string; content: string }[] }).messages
      .filter((m) => m.role !== 'system')
      .map((m) => m.content);
    expect(history).toEqual(['my colour is blue', 'remembered: blue', 'what was my colour?']);
  });
});

describe('examples/agent-sdk.mjs', () => {
  it('runs against a scripted model: the answer, the result line, and the denied command', async () => {
    const { repo, options } = await setup({
      turns: [{ text: 'Looking.', toolCalls: [{ name: 'shell', args: { command: 'ls' } }] }, { text: 'It is an empty project.' }],
    });
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const example = path.resolve(import.meta.dirname, '../../examples/agent-sdk.mjs');
    // Asynchronous: the scripted server answers from this process.
    const { stdout: output } = await promisify(execFile)(process.execPath, [example, 'what is this?'], {
      cwd: repo.dir,
      env: options.env as NodeJS.ProcessEnv,
      encoding: 'utf8',
    });
    expect(output).toBe('model: scripted:latest\nLooking.\nIt is an empty project.\n(success, 2 turns, $0)\n');
  });
});
