import { describe, expect, it } from 'vitest';
import { convertToLlm, INTERRUPTED_NOTE, INTERRUPTED_RESULT } from '../../src/agent/convert.js';
import type { AgentMessage } from '../../src/agent/types.js';

const t = 0;

describe('convertToLlm', () => {
  it('gives a tool call cut off by a crash an "interrupted" result so providers accept the history', () => {
    const history: AgentMessage[] = [
      { role: 'user', content: 'fix it', timestamp: t },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'shell', arguments: { command: 'sleep 9' } },
          { id: 'b', name: 'read_file', arguments: { path: 'x' } },
        ],
        timestamp: t,
      },
      { role: 'tool', toolCallId: 'b', toolName: 'read_file', content: 'x', isError: false, status: 'ok', timestamp: t },
      { role: 'note', kind: 'interrupted', text: 'Interrupted', timestamp: t },
      { role: 'user', content: 'go on', timestamp: t },
    ];
    expect(convertToLlm(history)).toEqual([
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: '', toolCalls: history[1]!.role === 'assistant' ? history[1]!.toolCalls : [] },
      { role: 'tool', toolCallId: 'b', toolName: 'read_file', content: 'x', isError: false },
      { role: 'tool', toolCallId: 'a', toolName: 'shell', content: INTERRUPTED_RESULT, isError: true },
      { role: 'user', content: INTERRUPTED_NOTE },
      { role: 'user', content: 'go on' },
    ]);
  });

  it('tells the model where the user interrupted an answer, so a cut answer is not read as finished', () => {
    const history: AgentMessage[] = [
      { role: 'user', content: 'explain', timestamp: t },
      { role: 'assistant', content: 'The parser first', toolCalls: [], stopReason: 'aborted', timestamp: t },
      { role: 'note', kind: 'interrupted', text: 'Interrupted by the user.', timestamp: t },
      { role: 'user', content: 'shorter please', timestamp: t },
    ];
    expect(convertToLlm(history)).toEqual([
      { role: 'user', content: 'explain' },
      { role: 'assistant', content: 'The parser first' },
      { role: 'user', content: INTERRUPTED_NOTE },
      { role: 'user', content: 'shorter please' },
    ]);
  });

  it('drops empty failed turns, orphan results and notes other than compaction summaries', () => {
    const history: AgentMessage[] = [
      { role: 'user', content: 'q', timestamp: t },
      { role: 'assistant', content: '', toolCalls: [], stopReason: 'error', timestamp: t },
      { role: 'tool', toolCallId: 'zzz', toolName: 'x', content: 'orphan', isError: false, status: 'ok', timestamp: t },
      { role: 'note', kind: 'error', text: 'provider down', timestamp: t },
      { role: 'note', kind: 'compaction', text: 'we fixed a bug', timestamp: t },
    ];
    expect(convertToLlm(history.slice(0, 4))).toEqual([{ role: 'user', content: 'q' }]);
  });

  it('starts the history at the latest compaction summary', () => {
    const history: AgentMessage[] = [
      { role: 'user', content: 'old question', timestamp: t },
      { role: 'assistant', content: 'old answer', toolCalls: [], timestamp: t },
      { role: 'note', kind: 'compaction', text: 'we fixed a bug', timestamp: t },
      { role: 'user', content: 'next', timestamp: t },
    ];
    expect(convertToLlm(history)).toEqual([
      { role: 'user', content: 'Summary of the earlier conversation:\nwe fixed a bug' },
      { role: 'user', content: 'next' },
    ]);
  });
});
