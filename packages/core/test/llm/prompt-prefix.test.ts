// Issue 32: providers cache the prompt by prefix, so what was sent once must be sent again byte for
// byte: tools, system prompt and every earlier message, turn after turn, including after a tool
// result, a steering message, an interrupted answer and a compaction.
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ChatSession } from '../../src/agent/chat-session.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { createClient } from '../../src/llm/providers.js';
import { compactSession } from '../../src/runtime/compact.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/tool.js';
import { anthropicBlocks } from '../../../../test/support/prompt-cache.ts';
import { startScriptedAnthropic } from '../../../../test/support/scripted-anthropic.ts';
import { startScriptedGemini } from '../../../../test/support/scripted-gemini.ts';
import { startScriptedOllama } from '../../../../test/support/scripted-ollama.ts';
import { startScriptedOpenAi } from '../../../../test/support/scripted-openai.ts';
import type { RecordedRequest, ScriptOptions, ScriptTurn, ScriptedServer } from '../../../../test/support/script.ts';
import { FAST_RETRY } from './helpers.js';

const workspace = { root: '/tmp/ws', cwd: '/tmp/ws', isGit: false };
const SYSTEM = `You are Beans, a coding assistant.\n${'Follow the project conventions and keep answers short. '.repeat(100)}`;

type Provider = 'anthropic' | 'openai' | 'gemini' | 'ollama';
const PROVIDERS: { id: Provider; model: string; start: (options: ScriptOptions) => Promise<ScriptedServer>; baseUrl: (url: string) => string }[] = [
  { id: 'anthropic', model: 'claude-sonnet-5-5', start: startScriptedAnthropic, baseUrl: (url) => url },
  { id: 'openai', model: 'gpt-5-mini', start: startScriptedOpenAi, baseUrl: (url) => `${url}/v1` },
  { id: 'gemini', model: 'gemini-2.5-flash', start: startScriptedGemini, baseUrl: (url) => url },
  { id: 'ollama', model: 'qwen3:8b', start: startScriptedOllama, baseUrl: (url) => url },
];

/** The prompt as the provider caches it, one unit per block/message, in order. */
function promptUnits(provider: Provider, body: unknown): string[] {
  const b = body as Record<string, unknown[] | undefined> & { systemInstruction?: unknown };
  switch (provider) {
    case 'anthropic':
      return anthropicBlocks(body).map((block) => block.json);
    case 'gemini':
      return [
        JSON.stringify(b.systemInstruction ?? null),
        ...(b.tools ?? []).map((tool) => JSON.stringify(tool)),
        ...((b.contents ?? []) as { role: string; parts: unknown[] }[]).flatMap((content) =>
          content.parts.map((part, i) => `${i === 0 ? content.role : ''}:${JSON.stringify(part)}`),
        ),
      ];
    default:
      return [...(b.tools ?? []), ...(b.messages ?? [])].map((part) => JSON.stringify(part));
  }
}

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe.each(PROVIDERS)('the prompt prefix on $id', ({ id, model, start, baseUrl }) => {
  it('is byte-identical from one request to the next: after tool results, steering, an interrupt, and a compaction', async () => {
    // Main requests (they declare tools) are answered in this order; summary requests get a summary.
    const script: ScriptTurn[] = [
      { toolCalls: [{ name: 'read_file', args: { path: 'a.ts' }, id: 'call_a' }] },
      { toolCalls: [{ name: 'read_file', args: { path: 'b.ts' }, id: 'call_b' }] }, // steering arrives while b is read
      { text: 'Read a and b.' },
      { text: ['part one, ', 'part two'], chunkDelayMs: 300 }, // interrupted after the first piece
      { toolCalls: [{ name: 'read_file', args: { path: 'c.ts' }, id: 'call_c' }] },
      { text: 'Read c.' },
      { toolCalls: [{ name: 'read_file', args: { path: 'd.ts' }, id: 'call_d' }] },
      { text: 'Read d.' },
    ];
    let served = 0;
    const server = await start({
      promptCache: id !== 'ollama',
      turns: (request: RecordedRequest) => {
        const body = request.body as { tools?: unknown[] };
        if (!body.tools?.length) return { text: 'SUMMARY: read a, b and c.' };
        return script[Math.min(served++, script.length - 1)]!;
      },
    });
    servers.push(server);
    const client = await createClient(id, { apiKey: 'k', baseUrl: baseUrl(server.url), model, retry: FAST_RETRY, promptCacheKey: true, keepAlive: '30m' });
    let session: ChatSession | undefined;
    const readFile = defineTool({
      name: 'read_file',
      description: 'Reads a file.',
      kind: 'read',
      schema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        if (path === 'b.ts') session!.steer('Also look at c.ts afterwards.');
        return { content: `// ${path}\n${`export const line = '${path}';\n`.repeat(100)}` };
      },
    });
    session = new ChatSession({ client, provider: id, model, systemPrompt: SYSTEM, tools: new ToolRegistry([readFile]), workspace });

    expect((await session.prompt('Read a.ts and b.ts.')).stopReason).toBe('completed');
    const stop = session.subscribe((event: AgentEvent) => {
      if (event.type === 'message_update' && event.delta) session!.abort();
    });
    expect((await session.prompt('Now summarise them.')).stopReason).toBe('aborted');
    stop();
    expect((await session.prompt('Read c.ts instead.')).stopReason).toBe('completed');
    expect(await compactSession(session, new AbortController().signal)).toMatch(/^Compacted/);
    expect((await session.prompt('Read d.ts.')).stopReason).toBe('completed');

    const chats = server.requests.filter((r) => r.kind === 'chat');
    const main = chats.filter((r) => (r.body as { tools?: unknown[] }).tools?.length);
    expect(main).toHaveLength(8);
    const units = main.map((r) => promptUnits(id, r.body));
    // Each request's prompt starts with the whole previous one, except across the compaction (5 -> 6).
    for (const k of [0, 1, 2, 3, 4, 6]) {
      const before = units[k]!;
      const after = units[k + 1]!;
      expect(after.length, `request ${k + 1} is longer than request ${k}`).toBeGreaterThan(before.length);
      for (let i = 0; i < before.length; i++) expect(after[i], `request ${k + 1}, unit ${i}`).toBe(before[i]);
    }

    if (id === 'anthropic') {
      // Every request reads what the one before it wrote, except the first and the first after compaction.
      const reads = main.map((r) => r.bill!.cacheRead);
      expect(reads.filter((read, k) => k !== 0 && k !== 6 && read === 0)).toEqual([]);
      expect(reads[7]).toBeGreaterThan(0);
    }
    if (id === 'openai') {
      for (const request of main) expect((request.body as { prompt_cache_key?: string }).prompt_cache_key).toBe(session.id);
      expect(main[1]!.bill!.cacheRead).toBeGreaterThan(0);
    }
    if (id === 'gemini') expect(main[1]!.bill!.cacheRead).toBeGreaterThan(0);
    if (id === 'ollama') for (const request of main) expect((request.body as { keep_alive?: string }).keep_alive).toBe('30m');
    // Cache reads reach the session's usage, the summary request's included. Anthropic reports the
    // prompt's usage as the answer starts, so the interrupted answer counts too; OpenAI and Gemini
    // report it only at the end of the stream, which the interrupted one never reached.
    const counted = id === 'anthropic' ? chats : chats.filter((r) => r !== main[3]);
    if (id !== 'ollama') expect(session.usage.cacheReadTokens).toBe(counted.reduce((total, r) => total + (r.bill?.cacheRead ?? 0), 0));
    if (id !== 'ollama') expect(session.usage.inputTokens).toBe(counted.reduce((total, r) => total + (r.bill?.input ?? 0), 0));
  }, 20_000);
});
