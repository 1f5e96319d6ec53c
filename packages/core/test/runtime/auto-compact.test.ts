import { describe, expect, it } from 'vitest';
import type { ChatSession } from '../../src/agent/chat-session.js';
import { convertToLlm } from '../../src/agent/convert.js';
import type { AgentMessage, NoteMessage } from '../../src/agent/types.js';
import { toAnthropicMessages } from '../../src/llm/anthropic-client.js';
import type { ChatRequest, ChatResult } from '../../src/llm/types.js';
import { autoCompaction, estimateTokens } from '../../src/runtime/auto-compact.js';
import { createToolSessionState } from '../../src/tools/tool.js';

// A session whose system prompt and tool declarations alone pass 80% of the smallest window.
function heavySession(): ChatSession {
  return { systemPrompt: 'x'.repeat(20_000), model: 'local:model', tools: { declarations: () => [] } } as unknown as ChatSession;
}

const user = (text: string): AgentMessage => ({ role: 'user', content: text, timestamp: 0 }) as AgentMessage;

describe('automatic compaction', () => {
  it('does not look the context window up for a lone prompt, which has nothing before it to compact', async () => {
    let lookups = 0;
    const transform = autoCompaction(heavySession, { threshold: 0.8 }, async () => {
      lookups += 1;
      return 8_000;
    });
    const messages = [user('hi')];
    expect(await transform(messages, new AbortController().signal)).toBe(messages);
    expect(lookups).toBe(0);
  });

  it('looks it up once there is a conversation before the prompt', async () => {
    let lookups = 0;
    const transform = autoCompaction(heavySession, { threshold: 0.8 }, async () => {
      lookups += 1;
      return 1_000_000;
    });
    const messages = [user('first'), { role: 'assistant', content: 'ok', toolCalls: [], timestamp: 0 } as AgentMessage, user('second')];
    expect(await transform(messages, new AbortController().signal)).toBe(messages);
    expect(lookups).toBe(1);
  });
});

// Issue 46: a summariser that fails, and the cost of a turn on a long history.
describe('automatic compaction with a failing summariser', () => {
  const WINDOW = 20_000;
  const signal = new AbortController().signal;

  function sessionWith(answer: () => ChatResult) {
    const messages: AgentMessage[] = [];
    const requests: ChatRequest[] = [];
    const toolState = createToolSessionState();
    toolState.todos.push({ content: 'read every chunk', status: 'in_progress' } as never);
    toolState.fileTimes.set('notes.txt', 1);
    const session = {
      id: 's1',
      systemPrompt: 'SYSTEM',
      model: 'm',
      messages,
      toolState,
      tools: { declarations: () => [{ name: 'read_file', description: 'reads', parameters: {} }] },
      client: {
        chat: async (request: ChatRequest) => {
          requests.push(request);
          return answer();
        },
      },
      append: (message: AgentMessage) => messages.push(message),
    } as unknown as ChatSession;
    return { session, messages, requests };
  }

  /** One turn of the agent: a call and its 3 KB result. */
  function addTurn(messages: AgentMessage[], n: number) {
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: { path: 'notes.txt', offset: n } }],
      timestamp: 0,
    });
    messages.push({
      role: 'tool',
      toolCallId: `c${n}`,
      toolName: 'read_file',
      content: `chunk ${n}\n${'x'.repeat(3_000)}`,
      isError: false,
      status: 'ok',
      timestamp: 0,
    });
  }

  it('asks the model at most twice, backing off in history size, and cuts the history itself so every request fits', async () => {
    const { session, messages, requests } = sessionWith(() => ({
      stopReason: 'tool_use',
      text: '',
      toolCalls: [{ id: 'x', name: 'read_file', arguments: {} }],
      usage: { inputTokens: 5_000, outputTokens: 10, costUsd: 0.01 },
    }));
    const spent: number[] = [];
    const transform = autoCompaction(
      () => session,
      { threshold: 0.8, contextWindow: WINDOW },
      async () => WINDOW,
    );
    messages.push({ role: 'user', content: 'TASK: read notes.txt chunk by chunk', timestamp: 0 });
    let largest = 0;
    for (let n = 0; n < 400; n++) {
      addTurn(messages, n);
      const view = await transform(messages, signal, (usage) => spent.push(usage.costUsd ?? 0));
      largest = Math.max(largest, estimateTokens(convertToLlm(view), 'SYSTEM'));
    }
    expect(requests).toHaveLength(2); // two failures in a row, then never again
    expect(requests.every((request) => request.tools === undefined)).toBe(true);
    expect(spent).toEqual([0.01, 0.01]); // the summary requests count in the run's usage
    expect(largest).toBeLessThanOrEqual(WINDOW);
    const notes = messages.filter((message): message is NoteMessage => message.role === 'note');
    expect(notes.length).toBeGreaterThan(5);
    expect(notes.filter((note) => note.notice)).toHaveLength(1); // told once
    // The notes keep what their summary requests cost, for a resumed session's totals.
    expect(notes.filter((note) => note.usage).map((note) => note.usage!.costUsd)).toEqual([0.01, 0.01]);
    const view = JSON.stringify(convertToLlm(messages));
    expect(view).toContain('TASK: read notes.txt chunk by chunk');
    expect(view).toContain('chunk 399');
    expect(view).toContain('[in_progress] read every chunk');
    expect(view).toContain('- notes.txt');
  });

  it('does not count a summary longer than what it replaces, or an empty one, as a summary', async () => {
    for (const text of ['', 'ok', 'y'.repeat(200_000)]) {
      const { session, messages } = sessionWith(() => ({ stopReason: 'stop', text, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } }));
      const transform = autoCompaction(
        () => session,
        { threshold: 0.8, contextWindow: WINDOW },
        async () => WINDOW,
      );
      messages.push({ role: 'user', content: 'TASK', timestamp: 0 });
      for (let n = 0; n < 25; n++) addTurn(messages, n);
      await transform(messages, signal);
      const note = messages.findLast((message): message is NoteMessage => message.role === 'note');
      expect(note?.text).toMatch(/^\[Earlier turns were shortened without a model summary\.\]/);
      expect(note?.notice).toMatch(/failed/);
    }
  });

  it("a turn on a 1 MB history takes under 20 ms of Beans' own time", async () => {
    const { session, messages } = sessionWith(() => ({ stopReason: 'stop', text: 'never asked', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } }));
    const transform = autoCompaction(
      () => session,
      { threshold: 0.8, contextWindow: 1_000_000 },
      async () => 1_000_000,
    );
    messages.push({ role: 'user', content: 'TASK', timestamp: 0 });
    for (let n = 0; n < 320; n++) addTurn(messages, n);
    expect(JSON.stringify(messages).length).toBeGreaterThan(1_000_000);
    // CPU time of this process (other work on a shared machine does not count), the best of 7 turns.
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      addTurn(messages, 1_000 + i);
      const started = process.cpuUsage();
      const view = await transform(messages, signal);
      // What the loop then does with it: the provider's messages and the request body.
      JSON.stringify(toAnthropicMessages(convertToLlm(view)));
      const used = process.cpuUsage(started);
      times.push((used.user + used.system) / 1000);
    }
    expect(Math.min(...times)).toBeLessThan(20);
  });
});

describe('with compaction turned off', () => {
  it('never summarises, but still keeps every request within the window', async () => {
    const requests: unknown[] = [];
    const messages: AgentMessage[] = [{ role: 'user', content: 'TASK', timestamp: 0 } as AgentMessage];
    const session = {
      systemPrompt: 'S',
      model: 'm',
      messages,
      toolState: createToolSessionState(),
      tools: { declarations: () => [] },
      client: {
        chat: async (request: unknown) => (
          requests.push(request),
          { stopReason: 'stop', text: 'x'.repeat(100), toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } }
        ),
      },
      append: (message: AgentMessage) => messages.push(message),
    } as unknown as ChatSession;
    const transform = autoCompaction(
      () => session,
      { threshold: 0.8, contextWindow: 10_000, enabled: false },
      async () => 10_000,
    );
    for (let n = 0; n < 30; n++) {
      messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: {} }], timestamp: 0 } as AgentMessage);
      messages.push({
        role: 'tool',
        toolCallId: `c${n}`,
        toolName: 'read_file',
        content: 'y'.repeat(3_000),
        isError: false,
        status: 'ok',
        timestamp: 0,
      } as AgentMessage);
    }
    const view = await transform(messages, new AbortController().signal);
    expect(requests).toHaveLength(0);
    expect(messages.some((message) => message.role === 'note')).toBe(false);
    expect(estimateTokens(convertToLlm(view), 'S')).toBeLessThanOrEqual(10_000);
    expect(JSON.stringify(convertToLlm(view))).toContain('TASK');
  });
});
