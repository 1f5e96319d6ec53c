import { describe, expect, it } from 'vitest';
import type { ChatSession } from '../../src/agent/chat-session.js';
import type { AgentMessage } from '../../src/agent/types.js';
import { autoCompaction } from '../../src/runtime/auto-compact.js';

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
