import { mkdtempSync, openSync, closeSync, ftruncateSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type LLMClient, type LlmMessage, type StreamEvent, type ToolDeclaration } from '../../src/llm/index.js';
import { encodeGguf, tinyLlamaGguf, writeTinyModel } from '../../../../test/support/gguf.ts';

// The real provider (node-llama-cpp's prebuilt llama.cpp) on a tiny random model written by the
// test: random weights and a byte vocabulary, so the text is noise, but streaming, token counts,
// cancelling, the KV cache and grammar-constrained tool calls are all real.

const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-local-'));
let modelFile: string;
const settings = { threads: 1, contextSize: 1024, gpu: 'off', seed: 7 } as const;

beforeAll(() => {
  modelFile = writeTinyModel(path.join(dir, 'tiny.gguf'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function client(extra: Record<string, unknown> = {}, model = modelFile): Promise<LLMClient> {
  return createClient('local', { model, env: { HOME: dir, BEANS_MODELS_DIR: path.join(dir, 'models') }, settings: { ...settings, ...extra } });
}

async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('local provider on a tiny GGUF', () => {
  it('streams an answer, counts tokens, costs nothing and reports the context size', async () => {
    const local = await client();
    const events = await drain(
      local.chatStream({ model: modelFile, system: 'You are terse.', messages: [{ role: 'user', content: 'hello' }], maxOutputTokens: 12 }),
    );
    const deltas = events.filter((e) => e.type === 'text_delta');
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    if (done?.type !== 'done') return;
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => (d.type === 'text_delta' ? d.text : '')).join('')).toBe(done.text);
    expect(done.usage.outputTokens).toBeGreaterThan(0);
    expect(done.usage.outputTokens).toBeLessThanOrEqual(12);
    expect(done.usage.inputTokens).toBeGreaterThan(5);
    expect(done.usage.costUsd).toBe(0);
    const models = await local.listModels();
    expect(models[0]).toMatchObject({ name: modelFile, provider: 'local', contextWindow: 1024 });
  });

  it('keeps the KV cache across turns: turn 2 evaluates only the new tokens', async () => {
    const local = await client();
    const system = 'You are a helpful assistant. '.repeat(20);
    const first: LlmMessage[] = [{ role: 'user', content: 'first question' }];
    const one = (await local.chat({ model: modelFile, system, messages: first, maxOutputTokens: 8 })).usage;
    const second: LlmMessage[] = [...first, { role: 'assistant', content: 'an answer' }, { role: 'user', content: 'second question' }];
    const two = (await local.chat({ model: modelFile, system, messages: second, maxOutputTokens: 8 })).usage;
    expect(one.inputTokens).toBeGreaterThan(500); // the system prompt, byte by byte
    expect(two.cacheReadTokens).toBeGreaterThan(500);
    expect(two.inputTokens).toBeLessThan(100);
    expect(two.inputTokens + (two.cacheReadTokens ?? 0)).toBeGreaterThan(one.inputTokens);
  });

  it('stops within a second when cancelled, as an aborted event', async () => {
    const local = await client();
    const controller = new AbortController();
    const started = Date.now();
    let stoppedAt = 0;
    const events: StreamEvent[] = [];
    for await (const event of local.chatStream({
      model: modelFile,
      messages: [{ role: 'user', content: 'go on forever' }],
      maxOutputTokens: 100_000,
      signal: controller.signal,
    })) {
      events.push(event);
      if (event.type === 'text_delta' && !controller.signal.aborted) {
        controller.abort();
        stoppedAt = Date.now();
      }
    }
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'error', stopReason: 'aborted' });
    expect(Date.now() - stoppedAt).toBeLessThan(1000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('with a grammar from the tools, a random model emits a call that parses and fits the schema', async () => {
    const local = await client({ toolChoice: 'required' });
    const tools: ToolDeclaration[] = [
      {
        name: 'read_file',
        description: 'Read a file.',
        parameters: { type: 'object', properties: { path: { type: 'string', maxLength: 40 }, limit: { type: 'integer' } }, required: ['path'] },
      },
      {
        name: 'set_mode',
        description: 'Set the mode.',
        parameters: { type: 'object', properties: { mode: { enum: ['fast', 'slow'] }, on: { type: 'boolean' } }, required: ['mode', 'on'] },
      },
    ];
    const result = await local.chat({ model: modelFile, system: 'sys', messages: [{ role: 'user', content: 'do it' }], tools, maxOutputTokens: 400 });
    expect(result.stopReason).toBe('tool_use');
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(['read_file', 'set_mode']).toContain(call.name);
    if (call.name === 'read_file') {
      expect(Object.keys(call.arguments)).toEqual(['path']);
      expect(typeof call.arguments.path).toBe('string');
    } else {
      expect(['fast', 'slow']).toContain(call.arguments.mode);
      expect(typeof call.arguments.on).toBe('boolean');
    }
    // The next turn (after the result) may answer or call again; either way the reply parses.
    const next = await local.chat({
      model: modelFile,
      system: 'sys',
      messages: [
        { role: 'user', content: 'do it' },
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, toolName: call.name, content: 'ok' },
      ],
      tools,
      maxOutputTokens: 400,
    });
    expect(next.failure).toBeUndefined();
    expect(next.usage.cacheReadTokens).toBeGreaterThan(0);
  });
});

describe('local provider with a chat template node-llama-cpp knows (ChatML)', () => {
  const CHATML =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
  // A bounded string: a random model inside an unbounded one rarely samples the closing quote.
  const tools: ToolDeclaration[] = [
    {
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string', maxLength: 20 } }, required: ['path'] },
    },
  ];

  it('tools go through the template (streamed, not the strict JSON), and a history with calls and results reuses the cache', async () => {
    const file = writeTinyModel(path.join(dir, 'chatml.gguf'), { chatTemplate: CHATML });
    // The template documents the functions in the system prompt: ~1,000 byte tokens.
    const local = await client({ contextSize: 4096 }, file);
    const first = await drain(local.chatStream({ model: file, system: 'sys', messages: [{ role: 'user', content: 'do it' }], tools, maxOutputTokens: 20 }));
    expect(first.at(-1)?.type).toBe('done');
    // Strict mode sends its text only once the JSON closes; the template's own format streams it.
    expect(first.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(1);
    const second = await local.chat({
      model: file,
      system: 'sys',
      messages: [
        { role: 'user', content: 'do it' },
        { role: 'assistant', content: 'ok', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] },
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'the text of a.txt' },
      ],
      tools,
      maxOutputTokens: 20,
    });
    expect(second.failure).toBeUndefined();
    expect(second.usage.cacheReadTokens).toBeGreaterThan(100);
    // local.strictTools forces the grammar even with a known template: nothing streams before the JSON closes.
    const strict = await client({ strictTools: true, toolChoice: 'required', contextSize: 4096 }, file);
    const events = await drain(strict.chatStream({ model: file, system: 'sys', messages: [{ role: 'user', content: 'do it' }], tools, maxOutputTokens: 400 }));
    expect(events.filter((e) => e.type === 'text_delta')).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'tool_use', toolCalls: [{ name: 'read_file' }] });
  });
});

describe('local provider: files that are not models', () => {
  async function failureFor(file: string): Promise<string> {
    const local = await client({}, file);
    const resolved = await local.resolveModel();
    expect('failure' in resolved).toBe(true);
    if (!('failure' in resolved)) return '';
    expect(resolved.failure.kind).toBe('model_not_found');
    const events = await drain(local.chatStream({ model: file, messages: [{ role: 'user', content: 'hi' }] }));
    expect(events.at(-1)).toMatchObject({ type: 'error', failure: { message: resolved.failure.message } });
    return resolved.failure.message;
  }

  it('a file that is not GGUF', async () => {
    const file = path.join(dir, 'notes.gguf');
    writeFileSync(file, 'just some text\n');
    expect(await failureFor(file)).toMatch(/is not a GGUF model file/);
  });

  it('a missing file', async () => {
    expect(await failureFor(path.join(dir, 'nowhere.gguf'))).toMatch(/There is no model file at .*nowhere\.gguf/);
  });

  it('a truncated file', async () => {
    const file = path.join(dir, 'cut.gguf');
    const whole = readFileSync(modelFile);
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6)));
    expect(await failureFor(file)).toMatch(/is truncated: it holds .* but its header describes/);
  });

  it('a file cut inside its header', async () => {
    const file = path.join(dir, 'header-cut.gguf');
    writeFileSync(file, readFileSync(modelFile).subarray(0, 2000));
    expect(await failureFor(file)).toMatch(/damaged or truncated GGUF file|is truncated/);
  });

  it('an architecture llama.cpp does not know', async () => {
    const file = path.join(dir, 'alien.gguf');
    writeFileSync(file, tinyLlamaGguf({ architecture: 'frobnicator' }));
    expect(await failureFor(file)).toMatch(/a "frobnicator" model, an architecture this version of llama.cpp does not know/);
  });

  it('a model too big for memory (a sparse file whose header declares the weights)', async () => {
    const file = path.join(dir, 'huge.gguf');
    const rows = Math.ceil((os.totalmem() * 1.2) / 4 / 4096);
    const header = encodeGguf(
      { 'general.architecture': { type: 'string', value: 'llama' } },
      [{ name: 'token_embd.weight', dims: [4096, rows], data: new Float32Array(0) }],
      { dataless: true },
    );
    writeFileSync(file, header);
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, header.length + rows * 4096 * 4);
    closeSync(fd);
    expect(await failureFor(file)).toMatch(/needs about .* GB of memory for its weights, more than this machine has/);
  });
});
