import { collectStream } from './collect.js';
import type { ChatRequest, LLMClient, StreamEvent } from './types.js';

/** Failures after the client's own retries for which another model may answer (Claude Code's --fallback-model: overloaded). */
const FALLBACK_KINDS: ReadonlySet<string> = new Set(['server', 'rate_limit', 'model_not_found']);

/**
 * `--fallback-model`: a request whose model fails before answering anything (overloaded, 5xx or 429
 * after the retries, gone) is sent once more with the fallback model, with a notice saying so. A
 * stream that already produced text or a call is never replayed: its words reached the user.
 */
export function withFallbackModel(client: LLMClient, fallback: string): LLMClient {
  async function* chatStream(request: ChatRequest): AsyncGenerator<StreamEvent, void> {
    let answered = false;
    for await (const event of client.chatStream(request)) {
      if (event.type === 'error' && !answered && request.model !== fallback && FALLBACK_KINDS.has(event.failure.kind) && !request.signal?.aborted) {
        yield { type: 'notice', text: `${request.model} failed (${event.failure.message}); answering with the fallback model ${fallback}.` };
        yield* client.chatStream({ ...request, model: fallback });
        return;
      }
      if (event.type === 'text_delta' || event.type === 'tool_call' || event.type === 'reasoning_delta') answered = true;
      yield event;
    }
  }
  return {
    provider: client.provider,
    resolveModel: (signal) => client.resolveModel(signal),
    chatStream,
    chat: (request) => collectStream(chatStream(request)),
    listModels: (signal) => client.listModels(signal),
  };
}
