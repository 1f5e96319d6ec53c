import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedOpenAi } from '../../../../test/support/scripted-openai.ts';
import type { ScriptOptions, ScriptedServer } from '../../../../test/support/script.ts';
import { exitCodeForFailure } from '../../src/llm/failures.js';
import { createClient, createProviderClient, resolveProvider } from '../../src/llm/providers.js';
import type { ChatRequest, LLMClient, ProviderOptions } from '../../src/llm/types.js';
import { FAST_RETRY, closedPort, drain, finalDone, finalError, textOf } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function openAiWith(script: ScriptOptions, options: ProviderOptions = {}): Promise<{ client: LLMClient; server: ScriptedServer }> {
  server = await startScriptedOpenAi(script);
  const client = await createClient('openai', { baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: 'test-key' }, retry: FAST_RETRY, ...options });
  return { client, server };
}

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'gpt-5-mini', messages: [{ role: 'user', content: text }], ...extra });
const chats = (s: ScriptedServer) => s.requests.filter((r) => r.kind === 'chat');
const readFile = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

describe('OpenAI provider (the real openai client) against a scripted Chat Completions server', () => {
  it('streams text, asks for usage, and reports usage with cached tokens and the cost', async () => {
    const { client, server } = await openAiWith({ turns: [{ text: ['Hel', 'lo'], usage: { input: 1000, output: 200, cacheRead: 4000 } }] });
    const events = await drain(client.chatStream(ask('hi', { system: 'Be brief.' })));
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.text : ''))).toEqual(['Hel', 'lo']);
    const done = finalDone(events);
    expect(done).toMatchObject({ stopReason: 'stop', text: 'Hello', toolCalls: [] });
    expect(done.usage).toMatchObject({ inputTokens: 1000, outputTokens: 200, cacheReadTokens: 4000 });
    // gpt-5-mini: $0.25/M input, $0.025/M cached input, $2/M output
    expect(done.usage.costUsd).toBeCloseTo((1000 * 0.25 + 4000 * 0.025 + 200 * 2) / 1e6, 10);
    const request = chats(server)[0];
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(request.body).toMatchObject({
      model: 'gpt-5-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    });
  });

  it('assembles several tool calls of one turn from pieces keyed by index, and sends them back with their results', async () => {
    const { client, server } = await openAiWith({
      turns: [
        {
          text: 'Looking.',
          toolCalls: [
            { name: 'read_file', args: { path: 'a.txt' }, id: 'call_a' },
            { name: 'glob', args: { pattern: '**/*.ts' }, id: 'call_b' },
          ],
        },
        { text: 'Found it.' },
      ],
    });
    const first = finalDone(await drain(client.chatStream(ask('look', { tools: [readFile] }))));
    expect(first.stopReason).toBe('tool_use');
    expect(first.toolCalls).toEqual([
      { id: 'call_a', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: 'call_b', name: 'glob', arguments: { pattern: '**/*.ts' } },
    ]);
    const second = finalDone(
      await drain(
        client.chatStream(
          ask('look', {
            tools: [readFile],
            messages: [
              { role: 'user', content: 'look' },
              { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
              { role: 'tool', toolCallId: 'call_a', toolName: 'read_file', content: 'alpha' },
              { role: 'tool', toolCallId: 'call_b', toolName: 'glob', content: 'bad pattern', isError: true },
            ],
          }),
        ),
      ),
    );
    expect(second.text).toBe('Found it.');
    const [req1, req2] = chats(server).map((r) => r.body as Record<string, unknown>);
    expect(req1.tools).toEqual([{ type: 'function', function: readFile }]);
    expect(req2.messages).toEqual([
      { role: 'user', content: 'look' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'call_b', type: 'function', function: { name: 'glob', arguments: '{"pattern":"**/*.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'alpha' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: bad pattern' },
    ]);
  });

  it('shows reasoning_content as thinking, never as answer text, and does not send it back', async () => {
    const { client, server } = await openAiWith({ turns: [{ reasoning: ['Let me ', 'think.'], text: 'Answer.' }, { text: 'Again.' }] });
    const events = await drain(client.chatStream(ask('hi')));
    expect(events.filter((e) => e.type === 'reasoning_delta').map((e) => (e.type === 'reasoning_delta' ? e.text : ''))).toEqual(['Let me ', 'think.']);
    const done = finalDone(events);
    expect(done.text).toBe('Answer.');
    expect(done.reasoning).toEqual([{ text: 'Let me think.' }]);
    await drain(
      client.chatStream(
        ask('hi', {
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: done.text, reasoning: done.reasoning },
            { role: 'user', content: 'more' },
          ],
        }),
      ),
    );
    expect(JSON.stringify(chats(server)[1].body)).not.toContain('think');
  });

  it('sends images in user messages and tool results as image_url parts', async () => {
    const { client, server } = await openAiWith({ turns: [{ text: 'ok' }] });
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    await drain(
      client.chatStream(
        ask('x', {
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'what is this?' }, image] },
            { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.png' } }] },
            { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'an image' }, image] },
          ],
        }),
      ),
    );
    const messages = (chats(server)[0].body as { messages: unknown[] }).messages;
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    });
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'an image' });
    expect(messages[3]).toMatchObject({
      role: 'user',
      content: [{ type: 'text' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
    });
  });

  it('retries 429 twice, honouring retry-after, then succeeds', async () => {
    const { client, server } = await openAiWith(
      {
        turns: [{ text: 'finally' }],
        faults: [
          { status: 429, headers: { 'retry-after': '0.15' } },
          { status: 429, headers: { 'retry-after': '0.15' } },
        ],
      },
      { retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 1000 } },
    );
    const events = await drain(client.chatStream(ask('hi')));
    expect(events.flatMap((e) => (e.type === 'retry' ? [[e.attempt, e.failure.kind, e.delayMs]] : []))).toEqual([
      [2, 'rate_limit', 150],
      [3, 'rate_limit', 150],
    ]);
    expect(finalDone(events).text).toBe('finally');
    const times = chats(server).map((r) => r.time);
    expect(times).toHaveLength(3);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(140);
  });

  it('gives up on a 500 after the configured number of tries, with the server words', async () => {
    const { client, server } = await openAiWith(
      { turns: [{ text: 'never' }], faults: [{ status: 500, always: true }] },
      { retry: { ...FAST_RETRY, maxAttempts: 3 } },
    );
    const events = await drain(client.chatStream(ask('hi')));
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(2);
    const error = finalError(events);
    expect(chats(server)).toHaveLength(3);
    expect(error.failure).toMatchObject({ kind: 'server', status: 500 });
    expect(error.failure.message).toMatch(/OpenAI had a server error \(HTTP 500\) after 3 tries: scripted fault/);
    expect(exitCodeForFailure(error.failure)).toBe(1);
  });

  it('fails fast and names the URL when nothing listens there', async () => {
    const port = await closedPort();
    const client = await createClient('openai', { baseUrl: `http://127.0.0.1:${port}/v1`, env: { OPENAI_API_KEY: 'k' }, retry: FAST_RETRY });
    const started = Date.now();
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.failure.kind).toBe('unreachable');
    expect(error.failure.message).toContain(`http://127.0.0.1:${port}/v1`);
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  it('reports a missing key naming OPENAI_API_KEY without any request, and a rejected key naming it too', async () => {
    server = await startScriptedOpenAi({ turns: [{ text: 'x' }], apiKey: 'right' });
    const missing = await createClient('openai', { baseUrl: `${server.url}/v1`, env: {} });
    const error = finalError(await drain(missing.chatStream(ask('hi'))));
    expect(error.failure).toMatchObject({ kind: 'auth', message: expect.stringContaining('OPENAI_API_KEY') });
    expect(exitCodeForFailure(error.failure)).toBe(3);
    await expect(missing.listModels()).rejects.toMatchObject({ exitCode: 3 });
    expect(server.requests).toHaveLength(0);

    const wrong = await createClient('openai', { baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: 'wrong' }, retry: FAST_RETRY });
    const rejected = finalError(await drain(wrong.chatStream(ask('hi'))));
    expect(rejected.failure).toMatchObject({ kind: 'auth', status: 401 });
    expect(rejected.failure.message).toMatch(/OpenAI rejected the API key \(HTTP 401\): Incorrect API key.*OPENAI_API_KEY/);
  });

  it('takes the endpoint from OPENAI_BASE_URL', async () => {
    server = await startScriptedOpenAi({ turns: [{ text: 'from env' }] });
    const client = await createClient('openai', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` }, retry: FAST_RETRY });
    expect(finalDone(await drain(client.chatStream(ask('hi')))).text).toBe('from env');
  });

  it('retries once from the start when the stream is cut after text, then ends with a network failure', async () => {
    const { client, server } = await openAiWith({ turns: [{ text: ['one ', 'two ', 'three'], cutAfterChunks: 2 }] });
    const events = await drain(client.chatStream(ask('hi')));
    const error = finalError(events);
    expect(error.failure.kind).toBe('network');
    expect(events.filter((e) => e.type === 'retry')).toMatchObject([{ restart: true }]);
    expect(error.text).toBe('one ');
    expect(chats(server)).toHaveLength(2);
  });

  it('stops quickly when aborted mid-stream', async () => {
    const { client } = await openAiWith({ turns: [{ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 1000 }] });
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
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(finalError(events)).toMatchObject({ stopReason: 'aborted', failure: { kind: 'aborted' } });
    expect(textOf(events)).toBe('a');
  });

  it('names an unknown model and says how to list models', async () => {
    const { client } = await openAiWith({ turns: [{ text: 'x' }], models: [{ name: 'gpt-5-mini' }] });
    const error = finalError(await drain(client.chatStream(ask('hi', { model: 'gpt-9' }))));
    expect(error.failure.kind).toBe('model_not_found');
    expect(error.failure.message).toContain('"gpt-9"');
    expect(error.failure.message).toContain('beans models list');
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  it('lists models from /v1/models', async () => {
    const { client } = await openAiWith({ turns: [], models: [{ name: 'gpt-5' }, { name: 'gpt-4.1-mini' }] });
    const models = await client.listModels();
    expect(models.map((m) => [m.name, m.provider, m.contextWindow])).toEqual([
      ['gpt-4.1-mini', 'openai', 1_047_576],
      ['gpt-5', 'openai', 400_000],
    ]);
  });
});

describe('custom OpenAI-compatible endpoints from the "providers" setting', () => {
  it('are chosen by name, need no key unless apiKeyEnv says so, and use their first model', async () => {
    server = await startScriptedOpenAi({ turns: [{ text: 'local answer' }], models: [{ name: 'qwen2.5-coder-14b' }] });
    const config = {
      values: { provider: 'lmstudio', providers: { lmstudio: { type: 'openai' as const, baseUrl: `${server.url}/v1`, models: ['qwen2.5-coder-14b'] } } },
      entries: [{ key: 'provider', source: 'flag' as const }],
    };
    expect(resolveProvider(config, {})).toEqual({ providerId: 'lmstudio', reason: 'set by --provider' });
    const client = await createProviderClient('lmstudio', config, {}, FAST_RETRY);
    expect(await client.resolveModel()).toEqual({ model: 'qwen2.5-coder-14b' });
    const done = finalDone(await drain(client.chatStream({ model: '', messages: [{ role: 'user', content: 'hi' }] })));
    expect(done.text).toBe('local answer');
    expect(done.usage.costUsd).toBeUndefined();
    expect((await client.listModels()).map((m) => m.name)).toEqual(['qwen2.5-coder-14b']);
  });

  it('read the key from apiKeyEnv, and name that variable when it is missing or rejected', async () => {
    server = await startScriptedOpenAi({ turns: [{ text: 'hosted answer' }], apiKey: 'router-key' });
    const config = { values: { providers: { router: { type: 'openai' as const, baseUrl: `${server.url}/v1`, apiKeyEnv: 'ROUTER_KEY', models: ['m'] } } } };
    const missing = await createProviderClient('router', config, {}, FAST_RETRY);
    expect(finalError(await drain(missing.chatStream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }))).failure.message).toContain('ROUTER_KEY');
    const wrong = await createProviderClient('router', config, { ROUTER_KEY: 'nope' }, FAST_RETRY);
    const rejected = finalError(await drain(wrong.chatStream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })));
    expect(rejected.failure.message).toMatch(/router rejected the API key.*ROUTER_KEY/);
    const right = await createProviderClient('router', config, { ROUTER_KEY: 'router-key' }, FAST_RETRY);
    expect(finalDone(await drain(right.chatStream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }))).text).toBe('hosted answer');
  });
});
