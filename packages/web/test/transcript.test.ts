// The transcript the web view draws, built from a session's event stream one message at a time.
import { describe, expect, it } from 'vitest';
import { applyMessage, emptyTranscript, openQuestions, type Transcript } from '../src/transcript.ts';

const run = (messages: unknown[]): Transcript =>
  messages.reduce<Transcript>((transcript, message, index) => applyMessage(transcript, message, `e${index + 1}`), emptyTranscript());
const partial = (event: unknown) => ({ type: 'stream_event', event, parent_tool_use_id: null });
const init = { type: 'system', subtype: 'init', model: 'qwen3', provider: 'ollama', cwd: '/repo', permissionMode: 'default' };

describe('applyMessage', () => {
  it('streams an answer from partial messages, then keeps the final message in its place', () => {
    const streaming = run([
      init,
      { type: 'user', message: { role: 'user', content: 'hi' } },
      partial({ type: 'message_start' }),
      partial({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
      partial({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } }),
    ]);
    expect(streaming.model).toBe('qwen3');
    expect(streaming.running).toBe(true);
    expect(streaming.items.map((item) => item.kind)).toEqual(['user', 'assistant']);
    expect(streaming.items[1]).toMatchObject({ text: 'Hello', live: true });
    const done = [
      partial({ type: 'message_delta', usage: { input_tokens: 100, cache_read_input_tokens: 900, output_tokens: 20 } }),
      { type: 'assistant', message: { content: [{ type: 'text', text: 'Hello.' }] } },
      { type: 'result', subtype: 'success', is_error: false, total_cost_usd: 0.25, duration_ms: 1200, modelUsage: { qwen3: { contextWindow: 32768 } } },
    ].reduce<Transcript>((transcript, message, index) => applyMessage(transcript, message, `f${index}`), streaming);
    expect(done.items.map((item) => item.kind)).toEqual(['user', 'assistant', 'result']);
    expect(done.items[1]).toMatchObject({ text: 'Hello.', live: false });
    expect(done).toMatchObject({ running: false, costUsd: 0.25, contextTokens: 1020, contextWindow: 32768 });
  });

  it('joins a tool call with its result, and a question with its answer', () => {
    const transcript = run([
      { type: 'assistant', message: { content: [{ type: 'tool_use', id: 't1', name: 'write_file', input: { path: 'a.txt', content: 'x' } }] } },
      { type: 'permission_request', request_id: 'q1', tool_name: 'write_file', input: { path: 'a.txt', content: 'x' } },
    ]);
    expect(openQuestions(transcript).map((question) => question.requestId)).toEqual(['q1']);
    const answered = run([
      { type: 'assistant', message: { content: [{ type: 'tool_use', id: 't1', name: 'write_file', input: { path: 'a.txt', content: 'x' } }] } },
      { type: 'permission_request', request_id: 'q1', tool_name: 'write_file', input: {} },
      { type: 'permission_resolved', request_id: 'q1', behavior: 'deny' },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Permission denied: not now', is_error: true }] } },
    ]);
    expect(openQuestions(answered)).toEqual([]);
    expect(answered.items[0]).toMatchObject({ kind: 'tool', name: 'write_file', denied: true, result: { text: 'Permission denied: not now', isError: true } });
    expect(answered.items[1]).toMatchObject({ kind: 'question', resolved: 'deny' });
  });

  it("leaves a subagent's own messages to its task call, adds up the cost of every run, and ignores what it does not know", () => {
    const transcript = run([
      { type: 'assistant', parent_tool_use_id: 'task1', message: { content: [{ type: 'text', text: 'inside the subagent' }] } },
      { type: 'result', subtype: 'success', total_cost_usd: 0.5 },
      { type: 'result', subtype: 'error_during_execution', is_error: true, total_cost_usd: 0.25, errors: ['Interrupted.'] },
      { type: 'something_new', payload: 1 },
      null,
      'text',
    ]);
    expect(transcript.items.map((item) => item.kind)).toEqual(['result', 'result']);
    expect(transcript.items[1]).toMatchObject({ ok: false, errors: ['Interrupted.'] });
    expect(transcript.costUsd).toBe(0.75);
  });

  it('keeps the partial text of an answer stopped before its final message', () => {
    const transcript = run([
      partial({ type: 'message_start' }),
      partial({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'half an ans' } }),
      { type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['Interrupted.'] },
    ]);
    expect(transcript.items[0]).toMatchObject({ kind: 'assistant', text: 'half an ans', live: false });
  });
});
