import type { ChatSession } from '../agent/chat-session.js';
import { convertToLlm } from '../agent/convert.js';
import type { AgentMessage, NoteMessage } from '../agent/types.js';
import type { LlmMessage } from '../llm/types.js';
import { contentText } from '../tools/tool.js';

export interface CompactionSettings {
  /** Fraction of the context window a request may fill before older turns are summarised. */
  threshold: number;
  /** Overrides the model's context window (custom providers, or to compact earlier). */
  contextWindow?: number;
}

export const SUMMARY_INSTRUCTIONS = `Summarise the conversation so far for yourself, so the work can continue without it.
Keep: the user's goals and constraints, decisions made, files touched and why, commands run and their outcome,
open problems and next steps. Be specific (paths, names, errors); omit pleasantries. Under 400 words.`;

/** No model Beans can work with has a smaller context window than this (tokens). */
const SMALLEST_WINDOW = 4_096;
/** Part of the window the kept recent messages may take. */
const KEEP_SHARE = 0.25;
/** Each tool output is cut to this much in the request that asks for the summary. */
const SUMMARY_INPUT_TOOL_CHARS = 2_000;
const DROPPED_OUTPUT = '[Output dropped to keep the conversation within the context window.]';

/** A rough token count (4 characters a token): enough to decide when to compact. */
export function estimateTokens(messages: readonly LlmMessage[], extra = ''): number {
  return Math.ceil((JSON.stringify(messages).length + extra.length) / 4);
}

/**
 * The session's `transformContext`: before a request would pass the threshold of the model's
 * context window, the older part of the conversation is summarised by the model and a compaction
 * note (summary, todo plan, files in play) replaces it; the recent messages stay as they are.
 * The session file keeps everything. A summary that fails falls back to dropping the oldest tool
 * outputs from the request, never to an error.
 */
export function autoCompaction(
  session: () => ChatSession,
  settings: CompactionSettings,
  contextWindowOf: (model: string, signal: AbortSignal) => Promise<number | undefined>,
  /** Hooks around it: PreCompact before the summary, SessionStart (source compact) after. */
  around?: { before(signal: AbortSignal): Promise<void>; after(signal: AbortSignal): Promise<void> },
): (messages: AgentMessage[], signal: AbortSignal) => Promise<AgentMessage[]> {
  return async (messages, signal) => {
    const current = session();
    const overhead = current.systemPrompt + JSON.stringify(current.tools.declarations());
    const before = estimateTokens(convertToLlm(messages), overhead);
    // Short conversations fit every model: no look-up delays the first requests. Nor does a lone
    // prompt, with nothing before it to summarise or drop (many MCP tools can make it look long).
    if ((before < SMALLEST_WINDOW * settings.threshold || messages.length <= 1) && !settings.contextWindow) return messages;
    const window = settings.contextWindow ?? (await contextWindowOf(current.model, signal).catch(() => undefined));
    if (!window) return messages;
    const limit = window * settings.threshold;
    if (before <= limit) return messages;

    const split = splitPoint(messages, window * KEEP_SHARE);
    if (split > 0) {
      await around?.before(signal);
      const summary = await summarise(current, messages.slice(0, split), signal);
      if (summary) {
        const note: NoteMessage = {
          role: 'note',
          kind: 'compaction',
          text: withWorkingState(summary, current),
          tokensBefore: before,
          keptMessages: messages.length - split,
          trigger: 'auto',
          timestamp: Date.now(),
        };
        current.append(note); // `messages` is the session's own list: the note is now its last entry
        await around?.after(signal);
        if (estimateTokens(convertToLlm(messages), overhead) <= limit) return messages;
      }
    }
    return dropOldestOutputs(messages, (view) => estimateTokens(convertToLlm(view), overhead) <= limit);
  };
}

/**
 * Where the kept recent part begins: as many messages from the end as fit in `budget` tokens,
 * starting at a user or assistant message (never at a tool result torn from its call).
 */
function splitPoint(messages: readonly AgentMessage[], budget: number): number {
  let used = 0;
  let split = messages.length;
  for (let i = messages.length - 1; i > 0; i--) {
    used += Math.ceil(JSON.stringify(messages[i]).length / 4);
    if (used > budget) break;
    const role = messages[i]!.role;
    if (role === 'user' || role === 'assistant') split = i;
  }
  // Always keep the newest message (the prompt being answered), even when it alone is large.
  if (split === messages.length) {
    for (let i = messages.length - 1; i > 0; i--) {
      if (messages[i]!.role === 'user') return i;
    }
  }
  return split;
}

async function summarise(session: ChatSession, older: AgentMessage[], signal: AbortSignal): Promise<string | undefined> {
  const history = convertToLlm(older).map((message) =>
    message.role === 'tool' ? { ...message, content: shorten(typeof message.content === 'string' ? message.content : contentText(message.content)) } : message,
  );
  if (history.length === 0) return undefined;
  const result = await session.client.chat({
    model: session.model,
    system: SUMMARY_INSTRUCTIONS,
    messages: [...history, { role: 'user', content: 'Write the summary now.' }],
    signal,
  });
  const text = result.failure ? '' : result.text.trim();
  return text || undefined;
}

/** The plan and the files the agent has been working on survive compaction verbatim. */
function withWorkingState(summary: string, session: ChatSession): string {
  const parts = [summary];
  const todos = session.toolState.todos;
  if (todos.length > 0) parts.push(`Current plan:\n${todos.map((todo) => `- [${todo.status}] ${todo.content}`).join('\n')}`);
  const files = [...session.toolState.fileTimes.keys()].slice(-20);
  if (files.length > 0) parts.push(`Files in play:\n${files.map((file) => `- ${file}`).join('\n')}`);
  return parts.join('\n\n');
}

/** The fallback: a copy of the history with the oldest tool outputs dropped until it fits. */
function dropOldestOutputs(messages: AgentMessage[], fits: (view: AgentMessage[]) => boolean): AgentMessage[] {
  const view = [...messages];
  for (let i = 0; i < view.length && !fits(view); i++) {
    const message = view[i]!;
    if (message.role === 'tool' && message.content !== DROPPED_OUTPUT) view[i] = { ...message, content: DROPPED_OUTPUT };
  }
  return view;
}

function shorten(text: string): string {
  return text.length <= SUMMARY_INPUT_TOOL_CHARS ? text : `${text.slice(0, SUMMARY_INPUT_TOOL_CHARS)}\n[… cut for the summary]`;
}
