import type { ChatRequest, ChatResult, StreamEvent } from './types.js';

/** Drains a stream into a single result; the basis of every client's `chat`. */
export async function collectStream(stream: AsyncIterable<StreamEvent>): Promise<ChatResult> {
  for await (const event of stream) {
    if (event.type === 'done') {
      return { stopReason: event.stopReason, text: event.text, toolCalls: event.toolCalls, usage: event.usage };
    }
    if (event.type === 'error') {
      return { stopReason: event.stopReason, text: event.text, toolCalls: event.toolCalls, usage: event.usage, failure: event.failure };
    }
  }
  return {
    stopReason: 'error',
    text: '',
    toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    failure: { kind: 'unknown', message: 'The provider stream ended without a result.', retryable: false },
  };
}

export type StreamFn = (request: ChatRequest) => AsyncIterable<StreamEvent>;
