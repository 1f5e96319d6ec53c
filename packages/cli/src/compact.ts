import { convertToLlm, type ChatSession } from '@beans/core';

const SUMMARY_INSTRUCTIONS = `Summarise the conversation so far for yourself, so the work can continue without it.
Keep: the user's goals and constraints, decisions made, files touched and why, commands run and their outcome,
open problems and next steps. Be specific (paths, names, errors); omit pleasantries. Under 400 words.`;

/**
 * `/compact`: the model summarises the whole conversation; the summary is appended as a compaction
 * note, and from then on the model sees the summary instead of the turns before it (see convertToLlm).
 */
export async function compactSession(session: ChatSession, signal: AbortSignal): Promise<string> {
  const history = convertToLlm(session.messages);
  if (history.length < 2) return 'Nothing to compact yet.';
  const result = await session.client.chat({
    model: session.model,
    system: SUMMARY_INSTRUCTIONS,
    messages: [...history, { role: 'user', content: 'Write the summary now.' }],
    signal,
  });
  if (result.failure) return `Could not compact: ${result.failure.message}`;
  const summary = result.text.trim();
  if (!summary) return 'Could not compact: the model returned an empty summary.';
  session.append({ role: 'note', kind: 'compaction', text: summary, timestamp: Date.now() });
  return `Compacted ${history.length} messages into a ${summary.length}-character summary.`;
}
