import type { ChatSession } from '../agent/chat-session.js';
import { convertToLlm } from '../agent/convert.js';
import { askForSummary } from './summary-request.js';

/** Without a known window, the summary request is still cut to this many tokens. */
const DEFAULT_WINDOW = 128_000;

/**
 * `/compact`: the model summarises the whole conversation; the summary is appended as a compaction
 * note, and from then on the model sees the summary instead of the turns before it (see convertToLlm).
 * The request is checked like the automatic one (summary-request.ts): it fits the window, declares no
 * tools, its usage counts, and a tool call, an empty answer or one longer than the history is refused.
 */
export async function compactSession(session: ChatSession, signal: AbortSignal, focus?: string, contextWindow?: number): Promise<string> {
  const history = convertToLlm(session.messages);
  if (history.length < 2) return 'Nothing to compact yet.';
  const outcome = await askForSummary(session, session.messages, { window: contextWindow ?? DEFAULT_WINDOW, tokensPerChar: 0.25, signal, focus });
  // The summary is a request like any other: it counts in /cost, the status line and modelUsage.
  if (outcome.usage) session.emit({ type: 'usage', usage: outcome.usage, model: session.model, purpose: 'compaction' });
  if ('reason' in outcome) return `Could not compact: ${outcome.reason}.`;
  const tokensBefore = Math.ceil(JSON.stringify(history).length / 4);
  session.append({
    role: 'note',
    kind: 'compaction',
    text: outcome.summary,
    tokensBefore,
    trigger: 'manual',
    timestamp: Date.now(),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
  });
  return `Compacted ${history.length} messages into a ${outcome.summary.length}-character summary.`;
}
