import { describe, expect, it } from 'vitest';
import { settledMessages } from '../../src/agent/side-question.js';
import type { AgentMessage } from '../../src/agent/types.js';

const user = (content: string): AgentMessage => ({ role: 'user', content, timestamp: 0 });
const assistant = (content: string, calls: string[] = []): AgentMessage => ({
  role: 'assistant',
  id: `msg_${content}`,
  content,
  toolCalls: calls.map((id) => ({ id, name: 'read_file', arguments: { path: 'a' } })),
  model: 'm',
  provider: 'p',
  timestamp: 0,
});
const result = (id: string): AgentMessage => ({ role: 'tool', toolCallId: id, toolName: 'read_file', content: 'x', isError: false, timestamp: 0 });

describe('settledMessages: the conversation a side question reads while the agent works', () => {
  it('leaves out a step whose tool calls are still running, and keeps one whose calls all returned', () => {
    const done = [user('go'), assistant('reading', ['c1']), result('c1')];
    expect(settledMessages(done)).toEqual(done);
    const running = [...done, assistant('and more', ['c2', 'c3']), result('c2')];
    expect(settledMessages(running)).toEqual(done);
    expect(settledMessages([user('hi'), assistant('hello')])).toHaveLength(2);
    expect(settledMessages([user('hi')])).toHaveLength(1);
  });
});
