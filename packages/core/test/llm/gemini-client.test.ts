import { afterEach, describe, expect, it } from 'vitest';
import { geminiErrorBody, startScriptedGemini } from '../../../../test/support/scripted-gemini.ts';
import type { ScriptOptions, ScriptedServer } from '../../../../test/support/script.ts';
import { exitCodeForFailure } from '../../src/llm/failures.js';
import { createClient } from '../../src/llm/providers.js';
import type { ChatRequest, LLMClient, ProviderOptions } from '../../src/llm/types.js';
import { FAST_RETRY, closedPort, drain, finalDone, finalError } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function geminiWith(script: ScriptOptions, options: ProviderOptions = {}): Promise<{ client: LLMClient; server: ScriptedServer }> {
  server = await startScriptedGemini(script);
  const client = await createClient('gemini', { baseUrl: server.url, env: { GEMINI_API_KEY: 'test-key' }, retry: FAST_RETRY, ...options });
  return { client, server };
}

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'gemini-2.5-flash',
  messages: [{ role: 'user', content: text }],
  ...extra,
});
const chats = (s: ScriptedServer) => s.requests.filter((r) => r.kind === 'chat');

describe('Gemini provider against a scripted Gemini API', () => {
  it('streams text and reports usage with the cost of a priced model', async () => {
    const { client, server } = await geminiWith({ turns: [{ text: ['Hel', 'lo'], usage: { input: 1000, output: 200 } }] });
    const events = await drain(client.chatStream(ask('hi', { system: 'Be brief.' })));
    expect(events.filter((e) => e.type === 'text_delta')).toHaveLength(2);
    const done = finalDone(events);
    expect(done).toMatchObject({ stopReason: 'stop', text: 'Hello', toolCalls: [] });
    // gemini-2.5-flash: $0.30 per million input tokens, $2.50 per million output tokens
    expect(done.usage.inputTokens).toBe(1000);
    expect(done.usage.outputTokens).toBe(200);
    expect(done.usage.costUsd).toBeCloseTo(0.0008, 10);

    const request = chats(server)[0];
    expect(request.path).toMatch(/^\/v1(beta)?\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse$/);
    expect(request.headers['x-goog-api-key']).toBe('test-key');
    expect(request.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], systemInstruction: { parts: [{ text: 'Be brief.' }] } });
  });

  it('leaves the cost out for a model whose price is unknown', async () => {
    const { client } = await geminiWith({ turns: [{ text: 'ok', usage: { input: 10, output: 2 } }] });
    const done = finalDone(await drain(client.chatStream(ask('hi', { model: 'gemini-experimental-0000' }))));
    expect(done.usage).toEqual({ inputTokens: 10, outputTokens: 2 });
  });

  it('streams several tool calls in one turn and sends them back with the results grouped in one turn', async () => {
    const { client, server } = await geminiWith({
      turns: [
        {
          text: 'Looking.',
          toolCalls: [
            { name: 'read_file', args: { path: 'a.txt' }, id: 'call-a', thoughtSignature: 'sig-a' },
            { name: 'glob', args: { pattern: '**/*.ts' } },
          ],
        },
        { text: 'Found it.' },
      ],
    });
    const tools = [
      { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    ];
    const first = finalDone(await drain(client.chatStream(ask('look', { tools }))));
    expect(first.stopReason).toBe('tool_use');
    expect(first.toolCalls).toEqual([
      { id: 'call-a', name: 'read_file', arguments: { path: 'a.txt' }, metadata: { gemini: { thoughtSignature: 'sig-a' } } },
      { id: expect.any(String), name: 'glob', arguments: { pattern: '**/*.ts' } },
    ]);
    const generatedId = first.toolCalls[1].id;

    const second = finalDone(
      await drain(
        client.chatStream(
          ask('look', {
            tools,
            messages: [
              { role: 'user', content: 'look' },
              { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
              { role: 'tool', toolCallId: 'call-a', toolName: 'read_file', content: 'alpha' },
              { role: 'tool', toolCallId: generatedId, toolName: 'glob', content: 'bad pattern', isError: true },
            ],
          }),
        ),
      ),
    );
    expect(second.text).toBe('Found it.');

    const [req1, req2] = chats(server).map((r) => r.body as Record<string, unknown>);
    expect(req1.tools).toEqual([{ functionDeclarations: [{ name: 'read_file', description: 'Read a file', parametersJsonSchema: tools[0].parameters }] }]);
    expect(req2.contents).toEqual([
      { role: 'user', parts: [{ text: 'look' }] },
      {
        role: 'model',
        parts: [
          { text: 'Looking.' },
          { functionCall: { id: 'call-a', name: 'read_file', args: { path: 'a.txt' } }, thoughtSignature: 'sig-a' },
          { functionCall: { name: 'glob', args: { pattern: '**/*.ts' } } }, // Beans' own id is not sent as Gemini's
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call-a', name: 'read_file', response: { output: 'alpha' } } },
          { functionResponse: { name: 'glob', response: { error: 'bad pattern' } } },
        ],
      },
    ]);
  });

  it('retries 429 twice, honouring the retryDelay Gemini asks for, then succeeds', async () => {
    const quota = geminiErrorBody(429, 'Resource has been exhausted', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.15s' }]);
    const { client, server } = await geminiWith(
      {
        turns: [{ text: 'finally' }],
        faults: [
          { status: 429, body: quota },
          { status: 429, body: quota },
        ],
      },
      { retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 1000 } },
    );
    const events = await drain(client.chatStream(ask('hi')));
    const retries = events.flatMap((e) => (e.type === 'retry' ? [e] : []));
    expect(retries.map((e) => [e.attempt, e.failure.kind, e.delayMs])).toEqual([
      [2, 'rate_limit', 150],
      [3, 'rate_limit', 150],
    ]);
    expect(finalDone(events).text).toBe('finally');
    const times = chats(server).map((r) => r.time);
    expect(times).toHaveLength(3);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(140);
  });

  it('honours a Retry-After header, capped by the policy', async () => {
    const { client } = await geminiWith(
      { turns: [{ text: 'ok' }], faults: [{ status: 503, headers: { 'retry-after': '30' } }] },
      { retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 60 } },
    );
    const events = await drain(client.chatStream(ask('hi')));
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ delayMs: 60 });
    expect(finalDone(events).text).toBe('ok');
  });

  it('gives up on a 500 after the configured number of tries with a message that says so', async () => {
    const { client, server } = await geminiWith(
      { turns: [{ text: 'never' }], faults: [{ status: 500, always: true }] },
      { retry: { ...FAST_RETRY, maxAttempts: 3 } },
    );
    const events = await drain(client.chatStream(ask('hi')));
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(2);
    const error = finalError(events);
    expect(chats(server)).toHaveLength(3);
    expect(error.failure).toMatchObject({ kind: 'server', status: 500 });
    expect(error.failure.message).toMatch(/Gemini had a server error \(HTTP 500\) after 3 tries/);
    expect(exitCodeForFailure(error.failure)).toBe(1);
  });

  it('fails fast and names the endpoint when nothing listens there', async () => {
    const port = await closedPort();
    const client = await createClient('gemini', { baseUrl: `http://127.0.0.1:${port}`, env: { GEMINI_API_KEY: 'k' } });
    const started = Date.now();
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.failure.kind).toBe('unreachable');
    expect(error.failure.message).toContain(`127.0.0.1:${port}`);
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  it('reports a missing key as an auth failure naming GEMINI_API_KEY, without any request', async () => {
    server = await startScriptedGemini({ turns: [{ text: 'x' }] });
    const client = await createClient('gemini', { baseUrl: server.url, env: {} });
    const resolved = await client.resolveModel();
    expect('failure' in resolved && resolved.failure).toMatchObject({ kind: 'auth', message: expect.stringContaining('GEMINI_API_KEY') });
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(error.failure.kind).toBe('auth');
    expect(error.failure.message).toContain('GEMINI_API_KEY');
    expect(exitCodeForFailure(error.failure)).toBe(3);
    await expect(client.listModels()).rejects.toMatchObject({ exitCode: 3 });
    expect(server.requests).toHaveLength(0);
  });

  it('reports a rejected key as an auth failure', async () => {
    const { client } = await geminiWith({ turns: [{ text: 'x' }], apiKey: 'the-right-key' });
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(error.failure.kind).toBe('auth');
    expect(error.failure.message).toMatch(/rejected the API key.*GEMINI_API_KEY/);
  });

  it('takes the key from GOOGLE_API_KEY and the endpoint from GOOGLE_GEMINI_BASE_URL', async () => {
    server = await startScriptedGemini({ turns: [{ text: 'from env' }], apiKey: 'google-key' });
    const client = await createClient('gemini', { env: { GOOGLE_API_KEY: 'google-key', GOOGLE_GEMINI_BASE_URL: server.url }, retry: FAST_RETRY });
    expect(finalDone(await drain(client.chatStream(ask('hi')))).text).toBe('from env');
  });

  it('retries once from the start when the stream is cut after text, then ends with a network failure, not a hang', async () => {
    const { client, server } = await geminiWith({ turns: [{ text: ['one ', 'two ', 'three'], cutAfterChunks: 1 }] });
    const events = await drain(client.chatStream(ask('hi')));
    const error = finalError(events);
    expect(error.failure.kind).toBe('network');
    expect(events.filter((e) => e.type === 'retry')).toMatchObject([{ restart: true }]);
    expect(error.text).toBe('one ');
    expect(chats(server)).toHaveLength(2);
  });

  it('stops quickly when aborted mid-stream', async () => {
    const { client } = await geminiWith({ turns: [{ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 1000 }] });
    const controller = new AbortController();
    const events = [];
    const started = Date.now();
    for await (const event of client.chatStream(ask('hi', { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    expect(Date.now() - started).toBeLessThan(900);
    expect(finalError(events)).toMatchObject({ stopReason: 'aborted', text: 'a', failure: { kind: 'aborted' } });
  });

  it('ends at once with an aborted failure when aborted while waiting to retry', async () => {
    const { client } = await geminiWith(
      { turns: [{ text: 'x' }], faults: [{ status: 503, always: true }] },
      { retry: { maxAttempts: 4, baseDelayMs: 5_000, maxDelayMs: 5_000 } },
    );
    const controller = new AbortController();
    const events = [];
    const started = Date.now();
    for await (const event of client.chatStream(ask('hi', { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'retry') controller.abort();
    }
    expect(Date.now() - started).toBeLessThan(1000);
    expect(finalError(events).failure.kind).toBe('aborted');
  });

  it('names an unknown model and suggests `beans models list`', async () => {
    const { client } = await geminiWith({ turns: [{ text: 'x' }], models: [{ name: 'gemini-2.5-flash' }] });
    const error = finalError(await drain(client.chatStream(ask('hi', { model: 'gemini-9-ultra' }))));
    expect(error.failure.kind).toBe('model_not_found');
    expect(error.failure.message).toContain('"gemini-9-ultra"');
    expect(error.failure.message).toContain('beans models list');
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  it('lists models through the SDK pager', async () => {
    const { client } = await geminiWith({ turns: [], models: [{ name: 'gemini-2.5-pro', contextLength: 2_000_000 }, { name: 'gemini-2.5-flash' }] });
    const models = await client.listModels();
    expect(models.map((m) => [m.name, m.provider, m.contextWindow])).toEqual([
      ['gemini-2.5-pro', 'gemini', 2_000_000],
      ['gemini-2.5-flash', 'gemini', 1_048_576],
    ]);
  });

  it('uses the configured model when a request names none', async () => {
    const { client, server } = await geminiWith({ turns: [{ text: 'ok' }] }, { model: 'gemini-2.5-pro' });
    expect(await client.resolveModel()).toEqual({ model: 'gemini-2.5-pro' });
    finalDone(await drain(client.chatStream(ask('hi', { model: '' }))));
    expect(chats(server)[0].path).toContain('/models/gemini-2.5-pro:');
  });
});
