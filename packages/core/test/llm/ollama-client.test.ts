import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedOllama } from '../../../../test/support/scripted-ollama.ts';
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

async function ollamaWith(script: ScriptOptions, options: ProviderOptions = {}): Promise<{ client: LLMClient; server: ScriptedServer }> {
  server = await startScriptedOllama(script);
  const client = await createClient('ollama', { baseUrl: server.url, env: {}, retry: FAST_RETRY, ...options });
  return { client, server };
}

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'qwen3:8b', messages: [{ role: 'user', content: text }], ...extra });
const chats = (s: ScriptedServer) => s.requests.filter((r) => r.kind === 'chat');

describe('Ollama provider against a scripted Ollama', () => {
  it('streams text in chunks and reports usage at no cost', async () => {
    const { client } = await ollamaWith({ turns: [{ text: ['Hel', 'lo ', 'there'], usage: { input: 42, output: 7 } }] });
    const events = await drain(client.chatStream(ask('hi')));
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.text : ''))).toEqual(['Hel', 'lo ', 'there']);
    const done = finalDone(events);
    expect(done).toMatchObject({ stopReason: 'stop', text: 'Hello there', toolCalls: [] });
    expect(done.usage).toEqual({ inputTokens: 42, outputTokens: 7, costUsd: 0 });
  });

  it('streams several tool calls of one turn with generated ids, and sends the history back in Ollama form', async () => {
    const { client, server } = await ollamaWith({
      turns: [
        {
          text: 'Reading both.',
          toolCalls: [
            { name: 'read_file', args: { path: 'a.txt' } },
            { name: 'grep', args: { pattern: 'TODO', path: 'src' } },
          ],
        },
        { text: 'Both read.' },
      ],
    });
    const tools = [
      { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    ];
    const first = finalDone(await drain(client.chatStream(ask('read', { system: 'Be brief.', tools }))));
    expect(first.stopReason).toBe('tool_use');
    expect(first.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['read_file', { path: 'a.txt' }],
      ['grep', { pattern: 'TODO', path: 'src' }],
    ]);
    const [a, b] = first.toolCalls;
    expect(a.id).not.toBe(b.id);

    const second = finalDone(
      await drain(
        client.chatStream(
          ask('read', {
            system: 'Be brief.',
            tools,
            messages: [
              { role: 'user', content: 'read' },
              { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
              { role: 'tool', toolCallId: a.id, toolName: 'read_file', content: 'alpha' },
              { role: 'tool', toolCallId: b.id, toolName: 'grep', content: 'no match', isError: true },
            ],
          }),
        ),
      ),
    );
    expect(second.text).toBe('Both read.');

    const [req1, req2] = chats(server).map((r) => r.body as Record<string, unknown>);
    expect(req1.stream).toBe(true);
    expect(req1.tools).toEqual([{ type: 'function', function: tools[0] }]);
    expect((req1.messages as unknown[])[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(req2.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'read' },
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { function: { name: 'read_file', arguments: { path: 'a.txt' } } },
          { function: { name: 'grep', arguments: { pattern: 'TODO', path: 'src' } } },
        ],
      },
      { role: 'tool', content: 'alpha', tool_name: 'read_file' },
      { role: 'tool', content: 'no match', tool_name: 'grep' },
    ]);
  });

  it('answers from a turn function when the script needs custom logic', async () => {
    const { client } = await ollamaWith({
      turns: (request, n) => {
        const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
        return { text: `turn ${n}: you said ${messages.at(-1)?.content}` };
      },
    });
    const history: ChatRequest['messages'] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'two' },
    ];
    expect(finalDone(await drain(client.chatStream(ask('', { messages: history })))).text).toBe('turn 1: you said two');
  });

  it('retries 429 twice with retry events, then succeeds', async () => {
    const { client, server } = await ollamaWith({ turns: [{ text: 'ok' }], faults: [{ status: 429 }, { status: 429 }] });
    const events = await drain(client.chatStream(ask('hi')));
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.map((e) => (e.type === 'retry' ? [e.attempt, e.failure.kind] : []))).toEqual([
      [2, 'rate_limit'],
      [3, 'rate_limit'],
    ]);
    expect(finalDone(events).text).toBe('ok');
    expect(chats(server)).toHaveLength(3);
  });

  it('gives up on a 500 after the configured number of tries with a message that says so', async () => {
    const { client, server } = await ollamaWith(
      { turns: [{ text: 'never' }], faults: [{ status: 500, body: { error: 'model runner crashed' }, always: true }] },
      { retry: { ...FAST_RETRY, maxAttempts: 3 } },
    );
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(chats(server)).toHaveLength(3);
    expect(error.failure).toMatchObject({ kind: 'server', status: 500 });
    expect(error.failure.message).toContain('after 3 tries');
    expect(error.failure.message).toContain('model runner crashed');
    expect(exitCodeForFailure(error.failure)).toBe(1);
  });

  it('retries a connection dropped before any output', async () => {
    const { client, server } = await ollamaWith({ turns: [{ text: 'second time lucky' }], faults: [{ status: 0 }] });
    const events = await drain(client.chatStream(ask('hi')));
    expect(events.some((e) => e.type === 'retry' && e.failure.kind === 'network')).toBe(true);
    expect(finalDone(events).text).toBe('second time lucky');
    expect(chats(server)).toHaveLength(2);
  });

  it('fails fast and names the host when nothing listens there', async () => {
    const port = await closedPort();
    const client = await createClient('ollama', { baseUrl: `127.0.0.1:${port}`, env: {} });
    const started = Date.now();
    const error = finalError(await drain(client.chatStream(ask('hi'))));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.failure.kind).toBe('unreachable');
    expect(error.failure.message).toContain(`http://127.0.0.1:${port}`);
    expect(error.failure.message).toContain('OLLAMA_HOST');
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  it('ends the stream with a failure, not a throw, when the host is not a valid URL', async () => {
    const client = await createClient('ollama', { baseUrl: 'http://[bad', model: 'qwen3', env: {} });
    const events = await drain(client.chatStream(ask('hi')));
    expect(finalError(events).stopReason).toBe('error');
  });

  it('reads OLLAMA_HOST itself, without a scheme', async () => {
    server = await startScriptedOllama({ turns: [{ text: 'via env' }] });
    const client = await createClient('ollama', { env: { OLLAMA_HOST: server.url.replace('http://', '') }, retry: FAST_RETRY });
    expect(finalDone(await drain(client.chatStream(ask('hi')))).text).toBe('via env');
  });

  it('retries once from the start when the stream is cut after text, then ends with a network failure', async () => {
    const { client, server } = await ollamaWith({ turns: [{ text: ['one ', 'two ', 'three'], cutAfterChunks: 2 }] });
    const events = await drain(client.chatStream(ask('hi')));
    const error = finalError(events);
    expect(error.failure.kind).toBe('network');
    expect(error.text).toBe('one two ');
    expect(events.filter((e) => e.type === 'retry')).toMatchObject([{ restart: true }]);
    expect(chats(server)).toHaveLength(2); // retried once from the start, cut again
  });

  it('stops quickly when aborted mid-stream', async () => {
    const { client } = await ollamaWith({ turns: [{ text: ['a', 'b', 'c', 'd', 'e'], chunkDelayMs: 1000 }] });
    const controller = new AbortController();
    const events = [];
    const started = Date.now();
    for await (const event of client.chatStream(ask('hi', { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    expect(Date.now() - started).toBeLessThan(900);
    const error = finalError(events);
    expect(error).toMatchObject({ stopReason: 'aborted', text: 'a' });
    expect(exitCodeForFailure(error.failure)).toBe(130);
  });

  it('names the model and says how to get it when Ollama does not have it', async () => {
    const { client } = await ollamaWith({ turns: [{ text: 'x' }], models: [{ name: 'qwen3:8b', capabilities: ['completion', 'tools'] }] });
    const error = finalError(await drain(client.chatStream(ask('hi', { model: 'llama9:70b' }))));
    expect(error.failure.kind).toBe('model_not_found');
    expect(error.failure.message).toContain('"llama9:70b"');
    expect(error.failure.message).toContain('ollama pull llama9:70b');
    expect(exitCodeForFailure(error.failure)).toBe(3);
  });

  describe('choosing a model when none is configured', () => {
    it('picks the first installed model that supports tools and says so', async () => {
      const { client } = await ollamaWith({
        turns: [{ text: 'hi' }],
        models: [
          { name: 'nomic-embed-text:latest', capabilities: ['embedding'] },
          { name: 'gemma3:4b', capabilities: ['completion', 'vision'] },
          { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] },
        ],
      });
      const resolved = await client.resolveModel();
      expect(resolved).toMatchObject({ model: 'qwen3:8b' });
      expect('note' in resolved && resolved.note).toContain('qwen3:8b');
    });

    it('uses the picked model for a request that names none', async () => {
      const { client, server } = await ollamaWith({ turns: [{ text: 'hi' }], models: [{ name: 'qwen3:8b', capabilities: ['completion', 'tools'] }] });
      finalDone(await drain(client.chatStream(ask('hi', { model: '' }))));
      expect(chats(server)[0].body).toMatchObject({ model: 'qwen3:8b' });
    });

    it('keeps a configured model without asking the server', async () => {
      const { client, server } = await ollamaWith({ turns: [{ text: 'hi' }] }, { model: 'mine:latest' });
      expect(await client.resolveModel()).toEqual({ model: 'mine:latest' });
      expect(server.requests).toHaveLength(0);
    });

    it('tells the user to pull a tool-capable model when none is installed', async () => {
      const { client } = await ollamaWith({ turns: [], models: [] });
      const resolved = await client.resolveModel();
      expect('failure' in resolved && resolved.failure).toMatchObject({ kind: 'model_not_found' });
      expect('failure' in resolved && resolved.failure.message).toMatch(/ollama pull qwen3/);
    });

    it('explains when no installed model supports tools', async () => {
      const { client } = await ollamaWith({ turns: [], models: [{ name: 'gemma3:4b', capabilities: ['completion'] }] });
      const resolved = await client.resolveModel();
      expect('failure' in resolved && resolved.failure.message).toMatch(/gemma3:4b.*tool calling/);
    });
  });

  it('lists installed models with context length and tool support', async () => {
    const { client } = await ollamaWith({
      turns: [],
      models: [
        { name: 'qwen3:8b', capabilities: ['completion', 'tools'], contextLength: 40960, family: 'qwen3' },
        { name: 'gemma3:4b', capabilities: ['completion'], contextLength: 131072, family: 'gemma3' },
      ],
    });
    expect(await client.listModels()).toEqual([
      expect.objectContaining({ name: 'qwen3:8b', provider: 'ollama', contextWindow: 40960, supportsTools: true }),
      expect.objectContaining({ name: 'gemma3:4b', provider: 'ollama', contextWindow: 131072, supportsTools: false }),
    ]);
  });

  it('rejects listModels with a typed error naming the host when Ollama is down', async () => {
    const port = await closedPort();
    const client = await createClient('ollama', { baseUrl: `http://127.0.0.1:${port}`, env: {} });
    await expect(client.listModels()).rejects.toMatchObject({ kind: 'unreachable', exitCode: 3, message: expect.stringContaining(`127.0.0.1:${port}`) });
  });
});
