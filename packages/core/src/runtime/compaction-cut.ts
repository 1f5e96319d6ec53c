import type { AgentMessage, NoteMessage, UserMessage } from '../agent/types.js';
import type { LlmMessage } from '../llm/types.js';
import type { ToolSessionState } from '../tools/tool.js';
import { contentText } from '../tools/tool.js';

/**
 * The compaction that needs no model: what replaces the older turns when the model's summary failed
 * (or is not tried again yet). Deterministic, so the same history always gives the same note and the
 * prompt prefix after it stays cacheable: the task (the first prompt), one line per older step (tool
 * results shortened to a line, the oldest lines dropped first to fit), the plan and the files in play.
 */
const CUT_HEADER = '[Earlier turns were shortened without a model summary.]';

const TASK_CHARS = 2_000;
const LINE_CHARS = 160;
const EARLIER_SUMMARY_SHARE = 0.3;

export function deterministicSummary(
  older: readonly AgentMessage[],
  firstPrompt: UserMessage | undefined,
  state: ToolSessionState,
  budgetChars: number,
): string {
  const head = [CUT_HEADER];
  if (firstPrompt) head.push(`The task (the first request):\n${cut(firstPrompt.content, TASK_CHARS)}`);
  const tail = workingState(state);
  let left = budgetChars - head.join('\n\n').length - tail.join('\n\n').length - 64;

  // The summary an earlier compaction left (model or not) carries what came before it: keep its start.
  const earlier = older.findLast((message): message is NoteMessage => message.role === 'note' && message.kind === 'compaction');
  const parts = [...head];
  if (earlier && left > 200) {
    const text = cut(earlier.text, Math.floor(left * EARLIER_SUMMARY_SHARE));
    parts.push(`Before that:\n${text}`);
    left -= text.length + 16;
  }

  // One line per step since that earlier note, newest first until the budget is spent.
  const start = earlier ? older.lastIndexOf(earlier) + 1 : 0;
  const lines: string[] = [];
  let dropped = 0;
  for (let i = older.length - 1; i >= start; i--) {
    const line = stepLine(older[i]);
    if (!line) continue;
    if (left - line.length - 1 < 0) {
      dropped = countSteps(older, start, i);
      break;
    }
    lines.push(line);
    left -= line.length + 1;
  }
  lines.reverse();
  if (lines.length > 0 || dropped > 0) parts.push(`Earlier steps, one line each${dropped ? ` (the ${dropped} oldest left out)` : ''}:\n${lines.join('\n')}`);
  return [...parts, ...tail].join('\n\n');
}

function countSteps(older: readonly AgentMessage[], start: number, end: number): number {
  let count = 0;
  for (let i = start; i <= end; i++) if (stepLine(older[i])) count++;
  return count;
}

/** One line for a step: who said or did what, the tool result's first line and size. */
function stepLine(message: AgentMessage): string | undefined {
  switch (message.role) {
    case 'user':
      return `- user: ${oneLine(message.content)}`;
    case 'assistant': {
      const calls = message.toolCalls.map((call) => `${call.name} ${oneLine(JSON.stringify(call.arguments), 80)}`);
      const text = message.content ? oneLine(message.content) : '';
      if (!text && calls.length === 0) return undefined;
      return `- assistant: ${[text, ...calls.map((call) => `called ${call}`)].filter(Boolean).join('; ')}`;
    }
    case 'tool': {
      const text = typeof message.content === 'string' ? message.content : contentText(message.content);
      const lineCount = text.split('\n').length;
      return `  → ${message.toolName}${message.isError ? ' failed' : ''}: ${oneLine(text, 100)}${lineCount > 1 ? ` (${lineCount} lines)` : ''}`;
    }
    default:
      return undefined;
  }
}

export function workingState(state: ToolSessionState): string[] {
  const parts: string[] = [];
  if (state.todos.length > 0) parts.push(`Current plan:\n${state.todos.map((todo) => `- [${todo.status}] ${todo.content}`).join('\n')}`);
  const files = [...state.fileTimes.keys()].slice(-20);
  if (files.length > 0) parts.push(`Files in play:\n${files.map((file) => `- ${file}`).join('\n')}`);
  return parts;
}

function oneLine(text: string, max = LINE_CHARS): string {
  const first = text.trim().split('\n', 1)[0] ?? '';
  return cut(first, max);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A picture's share of the context, in characters of the estimate (4 a token): ~1,600 tokens, what
 * Anthropic bills for a picture at its largest size (1,568 px); the base64 bytes are not tokens.
 */
export const IMAGE_CHARS = 6_400;
/** A PDF document's share per page: ~2,000 tokens (its text and the page as a picture). */
const DOCUMENT_PAGE_CHARS = 8_000;

/** The JSON size of a message as the model reads it: pictures and documents count by their token cost, not their bytes. */
export function contextChars(value: unknown): number {
  let extra = 0;
  const json = JSON.stringify(value, (_key, part: unknown) => {
    if (!part || typeof part !== 'object' || typeof (part as { data?: unknown }).data !== 'string') return part;
    const { type, data: _data, ...rest } = part as { type?: string; data: string; pages?: number };
    if (type === 'image') extra += IMAGE_CHARS;
    else if (type === 'document') extra += (rest.pages ?? 1) * DOCUMENT_PAGE_CHARS;
    else return part;
    return { type, ...rest };
  });
  return (json?.length ?? 0) + extra;
}

const PICTURE_LEFT_OUT = '[A picture was left out here to keep the conversation within the context window.]';
const SHORT_RESULT = 'Output shortened to keep the conversation within the context window: ';
const KEEP_TEXT = 400;

/**
 * The last resort before a request goes out: a copy of the request's messages that fits in
 * `limitChars` (with `fixedChars` of system prompt and tools). Older pictures and documents go first
 * (a line says so where each was), then older tool results become one line, then older texts are
 * cut, then the newest message itself. Linear in the history: each message's size is measured once.
 */
export function shortenToFit(messages: readonly LlmMessage[], fixedChars: number, limitChars: number): LlmMessage[] {
  const sizes = messages.map((message) => contextChars(message));
  let total = fixedChars + sizes.reduce((sum, size) => sum + size, 0);
  if (total <= limitChars) return [...messages];
  const out = [...messages];
  const replace = (i: number, message: LlmMessage) => {
    const size = contextChars(message);
    total += size - sizes[i];
    sizes[i] = size;
    out[i] = message;
  };
  const last = out.length - 1;
  // 0. Pictures and documents, oldest first: they cost the most and a line keeps their place.
  for (let i = 0; i < last && total > limitChars; i++) {
    const message = out[i];
    if (message.role === 'assistant' || typeof message.content === 'string' || message.content.every((part) => part.type === 'text')) continue;
    replace(i, { ...message, content: message.content.map((part) => (part.type === 'text' ? part : { type: 'text' as const, text: PICTURE_LEFT_OUT })) });
  }
  // 1. Tool results, oldest first, to one line (the newest message last of all).
  for (let i = 0; i < last && total > limitChars; i++) {
    const message = out[i];
    if (message.role !== 'tool') continue;
    const text = typeof message.content === 'string' ? message.content : contentText(message.content);
    replace(i, { ...message, content: `${SHORT_RESULT}${oneLine(text, 120)}` });
  }
  // 2. Texts, oldest first, cut short.
  for (let i = 0; i < last && total > limitChars; i++) {
    const message = out[i];
    if (message.role === 'tool') continue;
    const text = typeof message.content === 'string' ? message.content : contentText(message.content);
    if (text.length > KEEP_TEXT) replace(i, { ...message, content: cut(text, KEEP_TEXT) });
  }
  // 3. The newest message, to what room is left.
  if (total > limitChars && last >= 0) {
    const message = out[last];
    const text = typeof message.content === 'string' ? message.content : contentText(message.content);
    const room = Math.max(200, text.length - (total - limitChars) - 200);
    replace(last, { ...message, content: cut(text, room) });
  }
  return out;
}
