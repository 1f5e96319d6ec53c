import type { ChatRequest, StreamEvent, ToolCall, Usage } from '../../src/llm/types.js';

export interface FakeTurn {
  text?: string;
  toolCalls?: Omit<ToolCall, 'id'>[] | ToolCall[];
  usage?: Usage;
  fail?: { kind: 'server' | 'auth'; message: string };
  /** Waits before finishing, so tests can steer or abort mid-turn. */
  delayMs?: number;
}

/** A provider stand-in: turn N answers the N-th request and records what it was sent. */
export function fakeStream(turns: FakeTurn[]) {
  const requests: ChatRequest[] = [];
  let callCounter = 0;
  const stream = async function* (request: ChatRequest): AsyncIterable<StreamEvent> {
    requests.push(structuredClone({ ...request, signal: undefined }));
    const turn = turns[Math.min(requests.length - 1, turns.length - 1)]!;
    const usage = turn.usage ?? { inputTokens: 10, outputTokens: 5, costUsd: 0.001 };
    if (turn.text) yield { type: 'text_delta', text: turn.text };
    if (turn.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, turn.delayMs);
        request.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (request.signal?.aborted) {
      yield {
        type: 'error',
        stopReason: 'aborted',
        failure: { kind: 'aborted', message: 'Aborted.', retryable: false },
        text: turn.text ?? '',
        toolCalls: [],
        usage,
      };
      return;
    }
    if (turn.fail) {
      yield { type: 'error', stopReason: 'error', failure: { ...turn.fail, retryable: false }, text: '', toolCalls: [], usage };
      return;
    }
    const toolCalls = (turn.toolCalls ?? []).map((call) => ({
      id: 'id' in call ? call.id : `call_${++callCounter}`,
      name: call.name,
      arguments: call.arguments,
    }));
    for (const call of toolCalls) yield { type: 'tool_call', call };
    yield { type: 'done', stopReason: toolCalls.length ? 'tool_use' : 'stop', text: turn.text ?? '', toolCalls, usage };
  };
  return { stream, requests };
}
