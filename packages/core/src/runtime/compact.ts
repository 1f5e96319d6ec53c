import type { ChatSession } from '../agent/chat-session.js';
import { convertToLlm } from '../agent/convert.js';
import { SUMMARY_INSTRUCTIONS } from './summary-request.js';

/**
 * `/compact`: the model summarises the whole conversation; the summary is appended as a compaction
 * note, and from then on the model sees the summary instead of the turns before it (see convertToLlm).
 */
export async function compactSession(session: ChatSession, signal: AbortSignal, focus?: string): Promise<string> {
  const history = convertToLlm(session.messages);
  if (history.length < 2) return 'Nothing to compact yet.';
  const result = await session.client.chat({
    model: session.model,
    system: focus?.trim() ? `${SUMMARY_INSTRUCTIONS}\nPay particular attention to: ${focus.trim()}` : SUMMARY_INSTRUCTIONS,
    messages: [...history, { role: 'user', content: 'Write the summary now.' }],
    signal,
    cacheKey: session.id,
  });
  // The summary is a request like any other: it counts in /cost, the status line and modelUsage.
  if (result.usage.inputTokens || result.usage.outputTokens || result.usage.cacheReadTokens || result.usage.cacheWriteTokens) {
    session.emit({ type: 'usage', usage: result.usage, model: session.model, purpose: 'compaction' });
  }
  if (result.failure) return `Could not compact: ${result.failure.message}`;
  const summary = result.text.trim();
  if (!summary) return 'Could not compact: the model returned an empty summary.';
  const tokensBefore = Math.ceil(JSON.stringify(history).length / 4);
  session.append({ role: 'note', kind: 'compaction', text: summary, tokensBefore, trigger: 'manual', timestamp: Date.now() });
  return `Compacted ${history.length} messages into a ${summary.length}-character summary.`;
}
