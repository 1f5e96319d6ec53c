// The test instrument of issue 32: scripted servers bill prompt caching the way Anthropic documents
// it, so a test that passes against them means something. And the Anthropic client's breakpoints,
// checked against it where the 20-block look-back matters.
import { describe, expect, it } from 'vitest';
import { withConversationBreakpoints } from '../../src/llm/anthropic-cache.js';
import { toAnthropicMessages } from '../../src/llm/anthropic-client.js';
import type { LlmMessage } from '../../src/llm/types.js';
import { anthropicPromptCache, CacheLimitError, openAiPromptCache, tokensOf } from '../../../../test/support/prompt-cache.ts';

const MARK = { cache_control: { type: 'ephemeral' } };
const big = (label: string) => `${label}: ${'word '.repeat(1_200)}`; // ~1,500 tokens
const text = (t: string, marked = false) => ({ type: 'text', text: t, ...(marked ? MARK : {}) });

describe('the scripted Anthropic cache', () => {
  it('writes at a breakpoint, reads it back next time, and bills the rest as input', () => {
    const cache = anthropicPromptCache();
    const first = { model: 'm', system: [text(big('system'), true)], messages: [{ role: 'user', content: [text('hi', true)] }] };
    const a = cache.bill(first);
    expect(a.cacheRead).toBe(0);
    expect(a.cacheWrite).toBeGreaterThan(1_024);
    const second = {
      ...first,
      messages: [...first.messages, { role: 'assistant', content: [text('hello')] }, { role: 'user', content: [text('more', true)] }],
    };
    const b = cache.bill(second);
    expect(b.cacheRead).toBe(a.cacheWrite); // everything the first wrote
    expect(b.input + b.cacheRead + b.cacheWrite).toBeGreaterThan(a.cacheWrite);
  });

  it('does not cache a prefix under 1,024 tokens', () => {
    const cache = anthropicPromptCache();
    const body = { model: 'm', system: [text('short', true)], messages: [{ role: 'user', content: [text('hi', true)] }] };
    cache.bill(body);
    expect(cache.bill(body)).toEqual({ input: cache.bills[0]!.input, cacheRead: 0, cacheWrite: 0 });
  });

  it('looks back 20 blocks from a breakpoint, no further', () => {
    const blocks = (n: number) => Array.from({ length: n }, (_, i) => text(`block ${i}`));
    const cache = anthropicPromptCache();
    const head = [text(big('head'), true)];
    cache.bill({ model: 'm', messages: [{ role: 'user', content: head }] });
    // The earlier write ends 20 blocks before the new breakpoint: found.
    expect(cache.bill({ model: 'm', messages: [{ role: 'user', content: [...head, ...blocks(19), text('x', true)] }] }).cacheRead).toBeGreaterThan(0);
    const other = anthropicPromptCache();
    other.bill({ model: 'm', messages: [{ role: 'user', content: head }] });
    // 21 blocks before: not found.
    expect(other.bill({ model: 'm', messages: [{ role: 'user', content: [text(big('head')), ...blocks(20), text('x', true)] }] }).cacheRead).toBe(0);
  });

  it('refuses more than 4 breakpoints, as the API does', () => {
    const cache = anthropicPromptCache();
    expect(() => cache.bill({ model: 'm', messages: [{ role: 'user', content: [1, 2, 3, 4, 5].map((i) => text(`t${i}`, true)) }] })).toThrow(CacheLimitError);
  });

  it('a changed byte early in the prompt makes every later read miss', () => {
    const cache = anthropicPromptCache();
    const body = (system: string) => ({ model: 'm', system: [text(system, true)], messages: [{ role: 'user', content: [text(big('question'), true)] }] });
    cache.bill(body(`${big('system')} 10:00`));
    expect(cache.bill(body(`${big('system')} 10:01`)).cacheRead).toBe(0);
  });

  it('OpenAI: automatic, in steps of 128 tokens, per prompt_cache_key', () => {
    const cache = openAiPromptCache();
    const messages = [
      { role: 'system', content: big('system') },
      { role: 'user', content: 'hi' },
    ];
    cache.bill({ model: 'm', messages, prompt_cache_key: 'a' });
    const again = cache.bill({ model: 'm', messages: [...messages, { role: 'assistant', content: 'x' }], prompt_cache_key: 'a' });
    expect(again.cacheRead).toBeGreaterThan(1_024);
    expect(again.cacheRead % 128).toBe(0);
    expect(cache.bill({ model: 'm', messages, prompt_cache_key: 'b' }).cacheRead).toBe(0);
    expect(tokensOf('abcd')).toBe(1);
  });
});

describe("the Anthropic client's conversation breakpoints", () => {
  it('still read the cache after a batch of 25 parallel tool results (more than the 20-block look-back)', () => {
    const cache = anthropicPromptCache();
    const tools = [{ name: 'read_file', description: big('tool'), input_schema: { type: 'object' }, ...MARK }];
    const system = [text('You are Beans.', true)];
    const history: LlmMessage[] = [{ role: 'user', content: big('task') }];
    const body = () => ({ model: 'm', tools, system, messages: withConversationBreakpoints(toAnthropicMessages(history), 2) });
    cache.bill(body());
    const calls = Array.from({ length: 25 }, (_, i) => ({ id: `c${i}`, name: 'read_file', arguments: { path: `f${i}` } }));
    history.push({ role: 'assistant', content: '', toolCalls: calls });
    for (const call of calls) history.push({ role: 'tool', toolCallId: call.id, toolName: 'read_file', content: `contents of ${call.id}` });
    const request = body();
    const marks = JSON.stringify(request).split('"cache_control"').length - 1;
    expect(marks).toBe(4);
    const bill = cache.bill(request);
    // Read up to the previous request's moving breakpoint (the task message), not just the tools.
    expect(bill.cacheRead).toBe(cache.bills[0]!.cacheWrite);
  });
});
