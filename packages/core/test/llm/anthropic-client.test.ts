import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedAnthropic } from '../../../../test/support/scripted-anthropic.ts';
import type { ScriptOptions, ScriptedServer } from '../../../../test/support/script.ts';
import { exitCodeForFailure } from '../../src/llm/failures.js';
import { createClient } from '../../src/llm/providers.js';
import type { ChatRequest, LLMClient, ProviderOptions } from '../../src/llm/types.js';
import { FAST_RETRY, closedPort, drain, finalDone, finalError, textOf } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function anthropicWith(script: ScriptOptions, options: ProviderOptions = {}): Promise<{ client: LLMClient; server: ScriptedServer }> {
  server = await startScriptedAnthropic(script);
  const client = await createClient('anthropic', { baseUrl: server.url, env: { ANTHROPIC_API_KEY: 'test-key' }, retry: FAST_RETRY, ...options });
  return { client, server };
}

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'claude-sonnet-5-5',
  messages: [{ role: 'user', content: text }],
  ...extra,
});
const chats = (s: ScriptedServer) => s.requests.filter((r) => r.kind === 'chat');
const readFile = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const glob = { name: 'glob', description: 'Find files', parameters: { type: 'object', properties: { pattern: { type: 'string' } } } };

describe('Anthropic provider (the real @anthropic-ai/sdk client) against a scripted Messages API', () => {
  it('streams text; caches the system prompt and tools; reports cache reads and writes in usage and cost', async () => {
    const { client, server } = await anthropicWith({
      turns: [{ text: ['Hel', 'lo'], usage: { input: 1000, output: 200, cacheRead: 10_000, cacheWrite: 2000 } }],
    });
    const events = await drain(client.chatStream(ask('hi', { system: 'Be brief.', tools: [readFile, glob] })));
    expect(textOf(events)).toBe('Hello');
    const done = finalDone(events);
    expect(done).toMatchObject({ stopReason: 'stop', text: 'Hello', toolCalls: [] });
    expect(done.usage).toMatchObject({ inputTokens: 1000, outputTokens: 200, cacheReadTokens: 10_000, cacheWriteTokens: 2000 });
    // claude-sonnet-5-5: $2/M input, $0.10/M cache read, $2.50/M cache write, $10/M output
    expect(done.usage.costUsd).toBeCloseTo((1000 * 2 + 10_000 * 0.1 + 2000 * 2.5 + 200 * 10) / 1e6, 10);
    const request = chats(server)[0];
    expect(request.headers['x-api-key'] ?? request.headers.authorization).toMatch(/^(Bearer )?test-key$/);
    expect(request.body).toMatchObject({
      model: 'claude-sonnet-5-5',
      stream: true,
      max_tokens: 64_000,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    const tools = (request.body as { tools: Record<string, unknown>[] }).tools;
    expect(tools.map((t) => [t.name, t.cache_control])).toEqual([
      ['read_file', undefined],
      ['glob', { type: 'ephemeral' }],
    ]);
    expect(tools[0].input_schema).toEqual(readFile.parameters);
  });

  it('assembles several tool_use blocks from input_json_delta pieces, and sends them back with tool_result blocks in one user message', async () => {
    const { client, server } = await anthropicWith({
      turns: [
        {
          text: 'Looking.',
          toolCalls: [
            { name: 'read_file', args: { path: 'a.txt' }, id: 'toolu_a' },
            { name: 'glob', args: { pattern: '**/*.ts' }, id: 'toolu_b' },
          ],
        },
        { text: 'Found it.' },
      ],
    });
    const first = finalDone(await drain(client.chatStream(ask('look', { tools: [readFile, glob] }))));
    expect(first.stopReason).toBe('tool_use');
    expect(first.toolCalls).toEqual([
      { id: 'toolu_a', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: 'toolu_b', name: 'glob', arguments: { pattern: '**/*.ts' } },
    ]);
    await drain(
      client.chatStream(
        ask('look', {
          messages: [
            { role: 'user', content: 'look' },
            { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
            { role: 'tool', toolCallId: 'toolu_a', toolName: 'read_file', content: 'alpha' },
            { role: 'tool', toolCallId: 'toolu_b', toolName: 'glob', content: 'bad pattern', isError: true },
          ],
        }),
      ),
    );
    // Cache breakpoints: on the newest message's last block, and on the user message before it.
    const breakpoint = { cache_control: { type: 'ephemeral' } };
    expect((chats(server)[1].body as { messages: unknown }).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look', ...breakpoint }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a.txt' } },
          { type: 'tool_use', id: 'toolu_b', name: 'glob', input: { pattern: '**/*.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'alpha' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'bad pattern', is_error: true, ...breakpoint },
        ],
      },
    ]);
  });

  it('streams thinking as reasoning, keeps its signature, and sends the signed block back first', async () => {
    const { client, server } = await anthropicWith({
      turns: [{ reasoning: ['Hmm, ', 'a file.'], toolCalls: [{ name: 'read_file', args: { path: 'a' }, id: 'toolu_1' }] }, { text: 'Done.' }],
    });
    const events = await drain(client.chatStream(ask('go', { tools: [readFile] })));
    expect(events.filter((e) => e.type === 'reasoning_delta')).toHaveLength(2);
    const done = finalDone(events);
    expect(done.text).toBe('');
    expect(done.reasoning).toEqual([{ text: 'Hmm, a file.', metadata: { anthropic: { signature: 'sig-0' } } }]);
    await drain(
      client.chatStream(
        ask('go', {
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: '', toolCalls: done.toolCalls, reasoning: [...(done.reasoning ?? []), { text: 'from another provider' }] },
            { role: 'tool', toolCallId: 'toolu_1', toolName: 'read_file', content: 'x' },
          ],
        }),
      ),
    );
    expect((chats(server)[1].body as { messages: { content: unknown }[] }).messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Hmm, a file.', signature: 'sig-0' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } },
    ]);
  });

  it('sends images as base64 image blocks, in user messages and inside tool results', async () => {
    const { client, server } = await anthropicWith({ turns: [{ text: 'ok' }] });
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    await drain(
      client.chatStream(
        ask('x', {
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'see' }, image] },
            { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'a.png' } }] },
            { role: 'tool', toolCallId: 'toolu_1', toolName: 'read_file', content: [{ type: 'text', text: 'png' }, image] },
          ],
        }),
      ),
    );
    const messages = (chats(server)[0].body as { messages: { content: unknown }[] }).messages;
    const block = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    // The cache breakpoints sit on the last block of each user message (anthropic-cache.ts).
    const breakpoint = { cache_control: { type: 'ephemeral' } };
    expect(messages[0].content).toEqual([
      { type: 'text', text: 'see' },
      { ...block, ...breakpoint },
    ]);
    expect(messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'png' }, block], ...breakpoint }]);
  });

  it('retries 429 twice and 529 overloaded alike, honouring retry-after, then succeeds', async () => {
    const { client, server } = await anthropicWith(
      { turns: [{ text: 'finally' }], faults: [{ status: 429, headers: { 'retry-after': '0.1' } }, { status: 529 }] },
      { retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 1000 } },
    );
    const events = await drain(client.chatStream(ask('hi')));
    const retries = events.flatMap((e) => (e.type === 'retry' ? [e] : []));
    expect(retries.map((e) => [e.attempt, e.failure.kind])).toEqual([
      [2, 'rate_limit'],
      [3, 'server'],
    ]);
    expect(retries[0].delayMs).toBe(100);
    expect(retries[1].failure.message).toContain('HTTP 529');
    expect(finalDone(events).text).toBe('finally');
    expect(chats(server)).toHaveLength(3);
  });

  it('gives up on a 500 after the configured number of tries', async () => {
    const { client, server } = await anthropicWith(
      { turns: [{ text: 'never' }], faults: [{ status: 500, always: true }] },
      { retry: { ...FAST_RETRY, maxAttempts: 3 } },
    );
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(chats(server)).toHaveLength(3);
    expect(error.failure).toMatchObject({ kind: 'server', status: 500 });
    expect(error.failure.message).toMatch(/Anthropic had a server error \(HTTP 500\) after 3 tries: scripted fault/);
    expect(exitCodeForFailure(error.failure)).toBe(1);
  });

  it('fails fast and names the URL when nothing listens there', async () => {
    const port = await closedPort();
    const client = await createClient('anthropic', { baseUrl: `http://127.0.0.1:${port}`, env: { ANTHROPIC_API_KEY: 'k' }, retry: FAST_RETRY });
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(error.failure.kind).toBe('unreachable');
    expect(error.failure.message).toContain(`http://127.0.0.1:${port}`);
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  it('reports a missing key naming ANTHROPIC_API_KEY without any request, and a rejected key naming it too', async () => {
    server = await startScriptedAnthropic({ turns: [{ text: 'x' }], apiKey: 'right' });
    const missing = await createClient('anthropic', { baseUrl: server.url, env: {} });
    expect(await missing.resolveModel()).toMatchObject({ failure: { kind: 'auth', message: expect.stringContaining('ANTHROPIC_API_KEY') } });
    const error = finalError(await drain(missing.chatStream(ask('hi'))));
    expect(exitCodeForFailure(error.failure)).toBe(3);
    expect(server.requests).toHaveLength(0);
    const wrong = await createClient('anthropic', { baseUrl: server.url, env: { ANTHROPIC_API_KEY: 'wrong' }, retry: FAST_RETRY });
    const rejected = finalError(await drain(wrong.chatStream(ask('hi'))));
    expect(rejected.failure.message).toMatch(/Anthropic rejected the API key \(HTTP 401\): invalid x-api-key.*ANTHROPIC_API_KEY/);
  });

  it('takes the endpoint from ANTHROPIC_BASE_URL', async () => {
    server = await startScriptedAnthropic({ turns: [{ text: 'from env' }] });
    const client = await createClient('anthropic', { env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url }, retry: FAST_RETRY });
    expect(finalDone(await drain(client.chatStream(ask('hi')))).text).toBe('from env');
  });

  it('retries once from the start when the stream is cut after text, then ends with a network failure', async () => {
    const { client, server } = await anthropicWith({ turns: [{ text: ['one ', 'two ', 'three'], cutAfterChunks: 3 }] });
    const events = await drain(client.chatStream(ask('hi')));
    const error = finalError(events);
    expect(error.failure.kind).toBe('network');
    expect(events.filter((e) => e.type === 'retry')).toMatchObject([{ restart: true }]);
    expect(error.text).toBe('one ');
    expect(chats(server)).toHaveLength(2);
  });

  it('stops quickly when aborted mid-stream', async () => {
    const { client } = await anthropicWith({ turns: [{ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 300 }] });
    const controller = new AbortController();
    const events = [];
    let abortedAt = 0;
    for await (const event of client.chatStream(ask('hi', { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text_delta') {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    expect(Date.now() - abortedAt).toBeLessThan(250);
    expect(finalError(events)).toMatchObject({ stopReason: 'aborted', failure: { kind: 'aborted' } });
  });

  it('names an unknown model and says how to list models', async () => {
    const { client } = await anthropicWith({ turns: [{ text: 'x' }], models: [{ name: 'claude-sonnet-5-5' }] });
    const error = finalError(await drain(client.chatStream(ask('hi', { model: 'claude-9' }))));
    expect(error.failure.kind).toBe('model_not_found');
    expect(error.failure.message).toContain('"claude-9"');
    expect(error.failure.message).toContain('beans models list');
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  it('lists models from /v1/models', async () => {
    const { client } = await anthropicWith({ turns: [], models: [{ name: 'claude-opus-5-5' }, { name: 'claude-haiku-5-5' }] });
    expect((await client.listModels()).map((m) => [m.name, m.provider, m.contextWindow])).toEqual([
      ['claude-opus-5-5', 'anthropic', 1_000_000],
      ['claude-haiku-5-5', 'anthropic', 1_000_000],
    ]);
  });
});
