import { describe, expect, it } from 'vitest';
import { convertToLlm, INTERRUPTED_RESULT } from '../../src/agent/convert.js';
import type { AgentMessage, ToolResultMessage } from '../../src/agent/types.js';
import { repairHistory } from '../../src/session/repair.js';
import { SessionStore } from '../../src/session/session-store.js';
import { assistant, header, tempDir, toolResult, user } from './session-fixtures.js';

const summary = (messages: AgentMessage[]) =>
  messages.map((m) =>
    m.role === 'tool' ? `tool:${m.toolCallId}:${m.status}` : m.role === 'assistant' ? `assistant:${m.toolCalls.map((c) => c.id).join(',')}` : m.role,
  );

/** Every call answered exactly once, right after its assistant message's batch: what providers demand. */
function expectConsistent(messages: AgentMessage[]) {
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool') {
      expect(open.has(m.toolCallId)).toBe(true);
      open.delete(m.toolCallId);
    } else if (m.role !== 'note') {
      expect([...open]).toEqual([]);
      open = new Set(m.role === 'assistant' ? m.toolCalls.map((c) => c.id) : []);
    }
  }
  expect([...open]).toEqual([]);
}

describe('repairHistory', () => {
  it('leaves a complete history as it is', () => {
    const history = [user('hi'), assistant('', [{ id: 'c1', name: 'glob' }]), toolResult('c1', 'glob'), assistant('done')];
    const repaired = repairHistory(history);
    expect(repaired).toEqual(history);
    expect(repaired).not.toBe(history);
  });

  it('answers calls left without a result with "interrupted", right after the batch\'s other results', () => {
    const history = [
      user('update the deps'),
      assistant('', [
        { id: 'c1', name: 'read_file' },
        { id: 'c2', name: 'shell', arguments: { command: 'npm install' } },
        { id: 'c3', name: 'read_file' },
      ]),
      toolResult('c1', 'read_file'),
      { role: 'note', kind: 'interrupted', text: 'Interrupted by the user.', timestamp: 1 } as AgentMessage,
      user('try again'),
    ];
    const repaired = repairHistory(history);
    expect(summary(repaired)).toEqual(['user', 'assistant:c1,c2,c3', 'tool:c1:ok', 'tool:c2:interrupted', 'tool:c3:interrupted', 'note', 'user']);
    const filled = repaired[3] as ToolResultMessage;
    expect(filled).toMatchObject({ role: 'tool', toolName: 'shell', isError: true, status: 'interrupted', content: INTERRUPTED_RESULT });
    expectConsistent(repaired);
  });

  it('closes a batch at the end of the history', () => {
    const repaired = repairHistory([user('go'), assistant('', [{ id: 'a', name: 'shell' }])]);
    expect(summary(repaired)).toEqual(['user', 'assistant:a', 'tool:a:interrupted']);
  });

  it('drops results whose call is not in the batch they follow, and duplicates', () => {
    const repaired = repairHistory([
      toolResult('ghost', 'shell'),
      user('go'),
      assistant('', [{ id: 'a', name: 'glob' }]),
      toolResult('a', 'glob'),
      toolResult('a', 'glob', 'again'),
      assistant('next', [{ id: 'b', name: 'glob' }]),
      toolResult('a', 'glob', 'late'),
      toolResult('b', 'glob'),
    ]);
    expect(summary(repaired)).toEqual(['user', 'assistant:a', 'tool:a:ok', 'assistant:b', 'tool:b:ok']);
  });

  it('completes a batch before a compaction summary, which the model reads', () => {
    const repaired = repairHistory([assistant('', [{ id: 'a', name: 'glob' }]), { role: 'note', kind: 'compaction', text: 'summary', timestamp: 1 }]);
    expect(summary(repaired)).toEqual(['assistant:a', 'tool:a:interrupted', 'note']);
  });

  it('agrees with what convertToLlm sends', () => {
    const history = [
      user('one'),
      assistant('', [
        { id: 'a', name: 'glob' },
        { id: 'b', name: 'grep' },
      ]),
      toolResult('b', 'grep'),
      toolResult('zzz', 'grep'),
      user('two'),
      assistant('', [{ id: 'c', name: 'shell' }]),
    ];
    expect(convertToLlm(repairHistory(history))).toEqual(convertToLlm(history));
  });
});

describe('resuming a session cut off in the middle of a tool call', () => {
  it('loads a history the providers accept and keeps it consistent as the session goes on', () => {
    const t = tempDir();
    try {
      const store = new SessionStore(t.dir);
      const first = store.create(header);
      first.append(user('run the slow tests'));
      first.append(
        assistant('Running them.', [
          { id: 'c1', name: 'read_file' },
          { id: 'c2', name: 'shell', arguments: { command: 'sleep 100' } },
        ]),
      );
      first.append(toolResult('c1', 'read_file'));
      // The process dies here (no close): c2 never got a result.

      const loaded = store.load(first.id);
      const history = repairHistory(loaded.messages);
      expect(summary(history)).toEqual(['user', 'assistant:c1,c2', 'tool:c1:ok', 'tool:c2:interrupted']);
      expectConsistent(history);
      const llm = convertToLlm(history);
      expect(llm.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c2', isError: true, content: INTERRUPTED_RESULT });

      const resumed = store.open(first.id);
      resumed.append(user('continue'));
      resumed.append(assistant('All green.'));
      resumed.close();
      const again = repairHistory(store.load(first.id).messages);
      expect(summary(again)).toEqual(['user', 'assistant:c1,c2', 'tool:c1:ok', 'tool:c2:interrupted', 'user', 'assistant:']);
      expectConsistent(again);
    } finally {
      t.cleanup();
    }
  });
});
