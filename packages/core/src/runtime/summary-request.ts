import type { ChatSession } from '../agent/chat-session.js';
import { convertToLlm } from '../agent/convert.js';
import type { AgentMessage } from '../agent/types.js';
import { spentUsage } from '../agent/usage.js';
import type { LlmMessage, Usage } from '../llm/types.js';
import { contentText } from '../tools/tool.js';

const SUMMARY_INSTRUCTIONS = `Summarise the conversation so far for yourself, so the work can continue without it.
Keep: the user's goals and constraints, decisions made, files touched and why, commands run and their outcome,
open problems and next steps. Be specific (paths, names, errors); omit pleasantries. Under 400 words.`;

/** Each tool output is cut to this much in the request that asks for the summary. */
const SUMMARY_INPUT_TOOL_CHARS = 2_000;
/** Part of the window the summary request may fill (the rest is for the answer). */
const SUMMARY_REQUEST_SHARE = 0.6;
/** A summary shorter than this is no summary. */
const MIN_SUMMARY_CHARS = 20;
/** Requests in total for one summary: one retry of a 429/5xx, then the compaction's own backoff decides. */
const SUMMARY_ATTEMPTS = 2;

export type SummaryOutcome = { summary: string; usage?: Usage } | { reason: string; usage?: Usage };

/**
 * Asks the model for a summary of `older`, with no tools declared (a summary is text). What counts
 * as a failure: a provider error, a tool call instead of text, an empty or too-short answer, or one
 * longer than what it replaces. The request is cut to fit the window like any other: tool outputs
 * shortened, then the oldest messages (but the first prompt) dropped.
 */
export async function askForSummary(
  session: ChatSession,
  older: readonly AgentMessage[],
  /** `focus`: what `/compact <focus>` asked the summary to attend to. */
  options: { window: number; tokensPerChar: number; signal: AbortSignal; focus?: string },
): Promise<SummaryOutcome> {
  const history = convertToLlm(older).map((message) =>
    message.role === 'tool' ? { ...message, content: shorten(typeof message.content === 'string' ? message.content : contentText(message.content)) } : message,
  );
  if (history.length === 0) return { reason: 'nothing to summarise' };
  const replacedChars = JSON.stringify(history).length;
  const messages = fitForSummary(history, Math.floor((options.window * SUMMARY_REQUEST_SHARE) / options.tokensPerChar) - SUMMARY_INSTRUCTIONS.length);
  const result = await session.client.chat({
    model: session.model,
    system: options.focus?.trim() ? `${SUMMARY_INSTRUCTIONS}\nPay particular attention to: ${options.focus.trim()}` : SUMMARY_INSTRUCTIONS,
    messages: [...messages, { role: 'user', content: 'Write the summary now.' }],
    signal: options.signal,
    cacheKey: session.id,
    maxAttempts: SUMMARY_ATTEMPTS,
  });
  const usage = spentUsage(result.usage);
  if (result.failure) return { reason: result.failure.message, usage };
  if (result.toolCalls.length > 0) return { reason: `the model answered with a call to ${result.toolCalls[0].name} instead of a summary`, usage };
  const summary = result.text.trim();
  if (summary.length < MIN_SUMMARY_CHARS) return { reason: summary ? 'the summary was too short' : 'the summary was empty', usage };
  if (summary.length >= replacedChars) return { reason: 'the summary was longer than the turns it would replace', usage };
  return { summary, usage };
}

/** Drops the oldest messages after the first until the history fits in `limitChars`; a tool result never loses its call. */
function fitForSummary(history: LlmMessage[], limitChars: number): LlmMessage[] {
  const sizes = history.map((message) => JSON.stringify(message).length);
  let total = sizes.reduce((sum, size) => sum + size, 0);
  let start = 1;
  while (total > limitChars && start < history.length - 1) {
    total -= sizes[start];
    start++;
    while (start < history.length - 1 && history[start].role === 'tool') {
      total -= sizes[start];
      start++;
    }
  }
  return start === 1
    ? history
    : [history[0], { role: 'assistant', content: '[Older turns left out of this summary request to fit the context window.]' }, ...history.slice(start)];
}

function shorten(text: string): string {
  return text.length <= SUMMARY_INPUT_TOOL_CHARS ? text : `${text.slice(0, SUMMARY_INPUT_TOOL_CHARS)}\n[… cut for the summary]`;
}
