import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import type { ScriptOptions, ScriptedServer } from '../../../../test/support/script.ts';
import { query, registerProvider, type LLMClient, type SdkMessage, type SdkUserInput, type StreamEvent } from '../../src/index.js';

/** A temporary git repository with an isolated HOME, and a scripted Ollama serving the turns. */
async function setup(script: ScriptOptions): Promise<{ dir: string; env: NodeJS.ProcessEnv; server: ScriptedServer }> {
  const repo = makeTempRepo();
  const server = await scriptedOllama(script);
  return { dir: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, server };
}

async function collect(messages: AsyncIterable<SdkMessage>): Promise<SdkMessage[]> {
  const out: SdkMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

const chats = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat');
const byType = (messages: SdkMessage[], type: SdkMessage['type']) => messages.filter((message) => message.type === type);

/** A stream of SDK user messages that the test feeds one at a time. */
function inputStream() {
  const pending: SdkUserInput[] = [];
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
    async *[Symbol.asyncIterator](): AsyncGenerator<SdkUserInput> {
      for (;;) {
        if (pending.length > 0) yield pending.shift()!;
        else if (done) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

describe('query()', () => {
  it('runs a tool-using turn and yields init, assistant, tool result, assistant and a success result', async () => {
    const { dir, env } = await setup({
      turns: [
        { text: 'Writing it.', toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'hello\n' } }] },
        { text: 'Done: notes.txt written.' },
      ],
    });
    const messages = await collect(query({ prompt: 'write notes.txt', options: { cwd: dir, env, permissionMode: 'bypassPermissions' } }));
    expect(messages.map((message) => message.type)).toEqual(['system', 'assistant', 'user', 'assistant', 'result']);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('hello\n');
    const init = messages[0]!;
    expect(init).toMatchObject({ type: 'system', subtype: 'init', cwd: dir, provider: 'ollama', permissionMode: 'bypassPermissions', mcp_servers: [] });
    const result = messages.at(-1)!;
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'Done: notes.txt written.',
      num_turns: 2,
      stop_reason: 'end_turn',
    });
    // Every message of the session carries its id and a uuid of its own.
    const sessionIds = new Set(messages.map((message) => message.session_id));
    expect(sessionIds.size).toBe(1);
    expect(new Set(messages.map((message) => message.uuid)).size).toBe(messages.length);
  });

  it("toolNames 'claude': tool_use blocks, system/init's tools and permission denials in Claude Code's vocabulary; outputFormat gives structured_output", async () => {
    const { dir, env } = await setup({
      turns: [
        {
          toolCalls: [
            { name: 'write_file', args: { path: 'notes.txt', content: 'hi\n' } },
            { name: 'shell', args: { command: 'rm -rf x' } },
          ],
        },
        { text: '{"done": true}' },
      ],
    });
    const messages = await collect(
      query({
        prompt: 'write notes',
        options: {
          cwd: dir,
          env,
          toolNames: 'claude',
          disallowedTools: 'shell(rm *)',
          permissionMode: 'acceptEdits',
          outputFormat: { type: 'json_schema', schema: { type: 'object', required: ['done'] } },
        },
      }),
    );
    const init = messages[0] as { tools: string[] };
    expect(init.tools).toEqual(expect.arrayContaining(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep', 'LS', 'TodoWrite', 'WebFetch', 'Task']));
    expect(init.tools).not.toContain('write_file');
    const uses = byType(messages, 'assistant').flatMap((m) =>
      (m as { message: { content: { type: string; name?: string; input?: unknown }[] } }).message.content.filter((b) => b.type === 'tool_use'),
    );
    expect(uses.map((b) => [b.name, b.input])).toEqual([
      ['Write', { file_path: path.join(dir, 'notes.txt'), content: 'hi\n' }],
      ['Bash', { command: 'rm -rf x' }],
    ]);
    const result = byType(messages, 'result')[0] as { permission_denials: unknown[]; structured_output: unknown };
    expect(result.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: expect.any(String), tool_input: { command: 'rm -rf x' } }]);
    expect(result.structured_output).toEqual({ done: true });
  });

  it('asks canUseTool for calls the policy would ask about, and runs the input it returns', async () => {
    const { dir, env } = await setup({
      turns: [
        { toolCalls: [{ name: 'write_file', args: { path: 'asked.txt', content: 'model text' } }] },
        { toolCalls: [{ name: 'shell', args: { command: 'touch shell-ran.txt' } }] },
        { text: 'Finished.' },
      ],
    });
    const asked: { name: string; input: Record<string, unknown>; id: string }[] = [];
    const messages = await collect(
      query({
        prompt: 'go',
        options: {
          cwd: dir,
          env,
          canUseTool: async (name, input, { toolUseID }) => {
            asked.push({ name, input, id: toolUseID });
            if (name === 'write_file') return { behavior: 'allow', updatedInput: { path: 'changed.txt', content: 'from the program' } };
            return { behavior: 'deny', message: 'no shell today' };
          },
        },
      }),
    );
    expect(asked.map((entry) => entry.name)).toEqual(['write_file', 'shell']);
    expect(asked[0]!.input).toEqual({ path: 'asked.txt', content: 'model text' });
    expect(existsSync(path.join(dir, 'asked.txt'))).toBe(false);
    expect(readFileSync(path.join(dir, 'changed.txt'), 'utf8')).toBe('from the program');
    expect(existsSync(path.join(dir, 'shell-ran.txt'))).toBe(false);
    const toolResults = byType(messages, 'user').flatMap((message) =>
      message.type === 'user' && Array.isArray(message.message.content) ? message.message.content : [],
    );
    expect(toolResults[1]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(JSON.stringify(toolResults[1])).toContain('no shell today');
    const result = messages.at(-1)!;
    expect(result.type === 'result' && result.permission_denials).toEqual([
      { tool_name: 'shell', tool_use_id: asked[1]!.id, tool_input: { command: 'touch shell-ran.txt' } },
    ]);
  });

  it('stops the run when canUseTool denies with interrupt', async () => {
    // (`echo hi` is read-only since issue #31 and is not asked about; `touch` is.)
    const { dir, env, server } = await setup({ turns: [{ toolCalls: [{ name: 'shell', args: { command: 'touch hi' } }] }, { text: 'never' }] });
    const messages = await collect(
      query({ prompt: 'go', options: { cwd: dir, env, canUseTool: async () => ({ behavior: 'deny', message: 'stop everything', interrupt: true }) } }),
    );
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(chats(server)).toHaveLength(1);
  });

  it('interrupt() stops a turn mid-stream; the result is an error_during_execution with errors', async () => {
    const { dir, env } = await setup({ turns: [{ text: ['one ', 'two ', 'three ', 'four ', 'five'], chunkDelayMs: 300 }] });
    const run = query({ prompt: 'count', options: { cwd: dir, env, includePartialMessages: true } });
    const messages: SdkMessage[] = [];
    for await (const message of run) {
      messages.push(message);
      if (message.type === 'stream_event' && message.event.type === 'content_block_delta') await run.interrupt();
    }
    const result = messages.at(-1)!;
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['The request was interrupted.'] });
  });

  it('takes a stream of user messages in one session, and setModel() applies to the next turn', async () => {
    const { dir, env, server } = await setup({
      turns: (request) => ({ text: `answer ${(request.body as { messages: unknown[] }).messages.length}` }),
      models: [
        { name: 'first:latest', capabilities: ['completion', 'tools'] },
        { name: 'second:latest', capabilities: ['completion', 'tools'] },
      ],
    });
    const input = inputStream();
    const run = query({ prompt: input, options: { cwd: dir, env, model: 'first:latest' } });
    input.send('first question');
    const messages: SdkMessage[] = [];
    for await (const message of run) {
      messages.push(message);
      if (message.type === 'result' && byType(messages, 'result').length === 1) {
        await run.setModel('second:latest');
        input.send('second question');
      } else if (message.type === 'result') {
        input.end();
      }
    }
    expect(byType(messages, 'result')).toHaveLength(2);
    expect(byType(messages, 'system')).toHaveLength(2);
    const requests = chats(server).map((request) => request.body as { model: string; messages: { role: string; content: string }[] });
    expect(requests.map((request) => request.model)).toEqual(['first:latest', 'second:latest']);
    // The second turn sees the whole first exchange.
    expect(requests[1]!.messages.filter((message) => message.role !== 'system').map((message) => message.content)).toEqual([
      'first question',
      expect.stringContaining('answer'),
      'second question',
    ]);
    expect(new Set(messages.map((message) => message.session_id)).size).toBe(1);
  });

  it("a command's model: applies to the run it starts and only that run", async () => {
    const { dir, env, server } = await setup({
      turns: () => ({ text: 'ok' }),
      models: [
        { name: 'first:latest', capabilities: ['completion', 'tools'] },
        { name: 'quick:latest', capabilities: ['completion', 'tools'] },
      ],
    });
    const plugin = path.join(dir, '..', 'tools');
    mkdirSync(path.join(plugin, 'commands'), { recursive: true });
    writeFileSync(path.join(plugin, 'commands', 'tldr.md'), '---\ndescription: summarize fast\nmodel: quick:latest\n---\nSummarize $ARGUMENTS\n');
    const input = inputStream();
    const run = query({ prompt: input, options: { cwd: dir, env, model: 'first:latest', pluginDirs: [plugin] } });
    input.send('/tldr the README');
    let results = 0;
    for await (const message of run) {
      if (message.type !== 'result') continue;
      results += 1;
      if (results === 1) input.send('and now?');
      else input.end();
    }
    const requests = chats(server).map((request) => request.body as { model: string; messages: { role: string; content: string }[] });
    expect(requests.map((request) => request.model)).toEqual(['quick:latest', 'first:latest']);
    expect(requests[0]!.messages.at(-1)!.content).toContain('Summarize the README');
  });

  it('setPermissionMode() changes what runs without asking', async () => {
    const { dir, env } = await setup({
      turns: (_request, n) => (n % 2 === 0 ? { toolCalls: [{ name: 'write_file', args: { path: `f${n}.txt`, content: 'x' } }] } : { text: 'ok' }),
    });
    const input = inputStream();
    const run = query({ prompt: input, options: { cwd: dir, env } });
    input.send('write one');
    for await (const message of run) {
      if (message.type !== 'result') continue;
      if (!existsSync(path.join(dir, 'f2.txt')) && message.permission_denials.length === 1) {
        await run.setPermissionMode('acceptEdits');
        input.send('write another');
      } else {
        input.end();
      }
    }
    expect(existsSync(path.join(dir, 'f0.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'f2.txt'))).toBe(true);
  });

  it('uses a provider registered in code, end to end', async () => {
    const { dir, env } = await setup({ turns: [] });
    const seen: string[] = [];
    const client: LLMClient = {
      provider: 'echo',
      resolveModel: async () => ({ model: 'echo-1' }),
      listModels: async () => [{ name: 'echo-1', provider: 'echo' }],
      chat: async () => {
        throw new Error('not used');
      },
      async *chatStream(request): AsyncIterable<StreamEvent> {
        const last = request.messages.at(-1);
        const text = `echo: ${typeof last?.content === 'string' ? last.content : ''}`;
        seen.push(request.model);
        yield { type: 'text_delta', text };
        yield { type: 'done', stopReason: 'stop', text, toolCalls: [], usage: { inputTokens: 3, outputTokens: 2, costUsd: 0.001 } };
      },
    };
    registerProvider({ id: 'echo', label: 'Echo (test)', isConfigured: () => false, create: () => client });
    const messages = await collect(query({ prompt: 'ping', options: { cwd: dir, env, provider: 'echo' } }));
    expect(seen).toEqual(['echo-1']);
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      subtype: 'success',
      result: 'echo: ping',
      total_cost_usd: 0.001,
      modelUsage: { 'echo-1': { inputTokens: 3, outputTokens: 2, costUSD: 0.001 } },
    });
    expect(messages[0]).toMatchObject({ type: 'system', subtype: 'init', provider: 'echo', model: 'echo-1' });
  });
});
