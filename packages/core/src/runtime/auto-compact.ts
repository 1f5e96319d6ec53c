import type { ChatSession } from '../agent/chat-session.js';
import { convertToLlm } from '../agent/convert.js';
import type { AgentMessage, NoteMessage, UserMessage } from '../agent/types.js';
import type { SpendFn } from '../agent/usage.js';
import type { Usage } from '../llm/types.js';
import { contextChars, deterministicSummary, shortenToFit, workingState } from './compaction-cut.js';
import { askForSummary } from './summary-request.js';

export interface CompactionSettings {
  /** Fraction of the context window a request may fill before older turns are summarised. */
  threshold: number;
  /** Overrides the model's context window (custom providers, or to compact earlier). */
  contextWindow?: number;
  /** False: no summaries and no cut, only the check that keeps each request within the window. */
  enabled?: boolean;
}

/** No model Beans can work with has a smaller context window than this (tokens). */
const SMALLEST_WINDOW = 4_096;
/** Part of the window the kept recent messages may take. */
const KEEP_SHARE = 0.25;
/** Part of the window a summary made without the model may take. */
const CUT_SHARE = 0.15;
/** Part of the window no request passes, whatever happened before (room for the answer). */
const HARD_SHARE = 0.95;
/** Model summaries that may fail in a row before compaction stops asking the model in this conversation. */
const MAX_SUMMARY_FAILURES = 2;
/** After a failed summary, the next one waits until the conversation has this many times as many messages. */
const RETRY_GROWTH = 1.5;
/** Characters per token when nothing better is known (the provider's own count calibrates it upwards). */
const DEFAULT_TOKENS_PER_CHAR = 0.25;

/** A rough token count (4 characters a token): enough to decide when to compact. */
export function estimateTokens(messages: readonly unknown[], extra = ''): number {
  return Math.ceil((JSON.stringify(messages).length + extra.length) / 4);
}

/**
 * The session's `transformContext`, run before every request. When the request would pass the
 * threshold of the model's context window, the older part of the conversation is replaced by a
 * compaction note (summary, plan, files in play); the recent messages stay as they are, and the
 * session file keeps everything.
 *
 * The summary comes from the model when it can: a failed one (an error, a tool call, an empty or
 * too-short text, or one longer than what it replaces) is not retried until the conversation has
 * grown by half, and after two failures in a row not at all; meanwhile, and after that, a summary
 * made without the model (compaction-cut.ts) takes its place, and the person is told once. Every
 * request is checked against the window before it is sent, with the provider's own token count of
 * the last request calibrating the estimate.
 */
export function autoCompaction(
  session: () => ChatSession,
  settings: CompactionSettings,
  contextWindowOf: (model: string, signal: AbortSignal) => Promise<number | undefined>,
  /** Hooks around it: PreCompact before the summary, SessionStart (source compact) after. */
  around?: { before(signal: AbortSignal): Promise<void>; after(signal: AbortSignal): Promise<void> },
): (messages: AgentMessage[], signal: AbortSignal, spend?: SpendFn) => Promise<AgentMessage[]> {
  let failures = 0;
  let retryAtLength = 0;
  let told = false;
  let tokensPerChar = DEFAULT_TOKENS_PER_CHAR;
  let lastRequest: { chars: number } | undefined;

  return async (messages, signal, spend) => {
    const current = session();
    const overhead = current.systemPrompt + JSON.stringify(current.tools.declarations());
    const measure = () => viewChars(messages) + overhead.length;
    calibrate();
    let chars = measure();
    const tokens = () => Math.ceil(chars * tokensPerChar);
    // Short conversations fit every model: no look-up delays the first requests. Nor does a lone
    // prompt, with nothing before it to summarise or drop (many MCP tools can make it look long).
    if ((tokens() < SMALLEST_WINDOW * settings.threshold || messages.length <= 1) && !settings.contextWindow) return remember(messages, chars);
    const window = settings.contextWindow ?? (await contextWindowOf(current.model, signal).catch(() => undefined));
    if (!window) return remember(messages, chars);
    const limit = settings.enabled === false ? window * HARD_SHARE : window * settings.threshold;
    if (tokens() <= limit) return remember(messages, chars);
    if (settings.enabled === false) return remember(shortenedView(messages, overhead.length, Math.floor((window * HARD_SHARE) / tokensPerChar)), chars);

    const before = tokens();
    const floor = lastCompactionIndex(messages) + 1;
    const split = splitPoint(messages, floor, window * KEEP_SHARE, tokensPerChar);
    if (split > floor || (split > 0 && floor === 0)) {
      const older = messages.slice(0, split);
      let text: string | undefined;
      let reason: string | undefined;
      let spent: Usage | undefined;
      if (failures < MAX_SUMMARY_FAILURES && messages.length >= retryAtLength) {
        await around?.before(signal);
        const outcome = await askForSummary(current, older, { window, tokensPerChar, signal });
        if (outcome.usage) spend?.(outcome.usage, current.model);
        spent = outcome.usage;
        if ('summary' in outcome) {
          failures = 0;
          text = [outcome.summary, ...workingState(current.toolState)].join('\n\n');
        } else {
          failures += 1;
          retryAtLength = Math.ceil(messages.length * RETRY_GROWTH);
          reason = outcome.reason;
        }
      }
      if (signal.aborted) return messages;
      const fallback = text === undefined;
      if (fallback) text = deterministicSummary(older, firstPrompt(messages), current.toolState, Math.floor((window * CUT_SHARE) / tokensPerChar));
      const note: NoteMessage = {
        role: 'note',
        kind: 'compaction',
        text: text!,
        tokensBefore: before,
        keptMessages: messages.length - split,
        trigger: 'auto',
        timestamp: Date.now(),
        ...(spent ? { usage: spent } : {}),
        ...(fallback && !told
          ? {
              notice: `The model's summary of the earlier turns ${reason ? `failed (${reason})` : 'is not tried again yet'}; Beans shortened them itself: the first request, one line per step, the plan and the files in play are kept, with the recent turns whole.`,
            }
          : {}),
      };
      if (fallback) told = true;
      current.append(note); // `messages` is the session's own list: the note is now its last entry
      if (!fallback || reason) await around?.after(signal);
      chars = measure();
    }
    if (tokens() <= window * HARD_SHARE) return remember(messages, chars);
    // Still too big (a huge recent message): the request goes out shortened, never over the window.
    return remember(shortenedView(messages, overhead.length, Math.floor((window * HARD_SHARE) / tokensPerChar)), chars);
  };

  /** Notes the size of the request about to go out, to compare with the provider's count of it. */
  function remember(view: AgentMessage[], chars: number): AgentMessage[] {
    lastRequest = { chars };
    return view;
  }

  /**
   * The provider's own token count of the last request (its prompt: input, cache reads and writes)
   * against the characters Beans measured for it: a tokenizer that needs more tokens per character
   * than the default makes every later estimate larger. Never smaller than the default.
   */
  function calibrate(): void {
    const messages = session().messages;
    if (!lastRequest) return;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (message.role !== 'assistant') continue;
      const usage = message.usage;
      const prompt = usage ? usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) : 0;
      if (prompt > 0 && lastRequest.chars > 0) tokensPerChar = Math.min(1, Math.max(DEFAULT_TOKENS_PER_CHAR, prompt / lastRequest.chars));
      break;
    }
    lastRequest = undefined;
  }
}

/** Each message's size as the model sees it, measured once: a turn on a long history costs only its new messages. */
const sizes = new WeakMap<AgentMessage, number>();

function sizeOf(message: AgentMessage): number {
  let size = sizes.get(message);
  if (size === undefined) {
    size = llmChars(message);
    sizes.set(message, size);
  }
  return size;
}

/** The JSON size of the LLM message(s) this message becomes (see convertToLlm). */
function llmChars(message: AgentMessage): number {
  switch (message.role) {
    case 'user':
      return contextChars({ role: 'user', content: message.content, parts: message.parts });
    case 'assistant':
      return JSON.stringify({ role: 'assistant', content: message.content, toolCalls: message.toolCalls, reasoning: message.reasoning }).length;
    case 'tool':
      return contextChars({ role: 'tool', toolCallId: message.toolCallId, toolName: message.toolName, content: message.content, isError: message.isError });
    case 'note':
      return message.kind === 'compaction' || message.kind === 'interrupted' ? JSON.stringify({ role: 'user', content: message.text }).length + 48 : 0;
  }
}

/**
 * The characters of the request's messages, as convertToLlm will give them: the latest compaction
 * summary, the messages it kept, and everything after it (a tool result's call may be before the
 * note; close enough for an estimate the provider's own count calibrates).
 */
function viewChars(messages: readonly AgentMessage[]): number {
  const note = lastCompactionIndex(messages);
  const kept = note >= 0 ? ((messages[note] as NoteMessage).keptMessages ?? 0) : 0;
  let total = 0;
  for (let i = Math.max(0, note - kept); i < messages.length; i++) total += sizeOf(messages[i]);
  return total;
}

function lastCompactionIndex(messages: readonly AgentMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === 'note' && message.kind === 'compaction') return i;
  }
  return -1;
}

function firstPrompt(messages: readonly AgentMessage[]): UserMessage | undefined {
  for (const message of messages) if (message.role === 'user') return message;
  return undefined;
}

/**
 * Where the kept recent part begins: as many messages from the end as fit in `budget` tokens,
 * starting at a user or assistant message (never at a tool result torn from its call), and never
 * before `floor` (what an earlier compaction already replaced).
 */
function splitPoint(messages: readonly AgentMessage[], floor: number, budget: number, tokensPerChar: number): number {
  let used = 0;
  let split = messages.length;
  for (let i = messages.length - 1; i > floor; i--) {
    used += Math.ceil(contextChars(messages[i]) * tokensPerChar);
    if (used > budget) break;
    const role = messages[i].role;
    if (role === 'user' || role === 'assistant') split = i;
  }
  // Always keep the newest message (the prompt being answered), even when it alone is large.
  if (split === messages.length) {
    for (let i = messages.length - 1; i > floor; i--) {
      const role = messages[i].role;
      if (role === 'user' || role === 'assistant') return i;
    }
  }
  return split;
}

/**
 * The request's view shortened to fit (compaction-cut.ts `shortenToFit`), as agent messages again:
 * the session keeps its history; only this request is cut.
 */
function shortenedView(messages: AgentMessage[], fixedChars: number, limitChars: number): AgentMessage[] {
  const view = convertToLlm(messages);
  const fitted = shortenToFit(view, fixedChars, limitChars);
  return fitted.map((message): AgentMessage => {
    switch (message.role) {
      case 'user': {
        // convertToLlm made [words, ...parts]: the pictures that still fit stay parts.
        if (typeof message.content === 'string') return { role: 'user', content: message.content, timestamp: 0 };
        const [first, ...rest] = message.content;
        const words = first?.type === 'text' ? first.text : '';
        const parts = first?.type === 'text' ? rest : message.content;
        return { role: 'user', content: words, ...(parts.length > 0 ? { parts } : {}), timestamp: 0 };
      }
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content,
          toolCalls: message.toolCalls ?? [],
          ...(message.reasoning ? { reasoning: message.reasoning } : {}),
          timestamp: 0,
        };
      case 'tool':
        return {
          role: 'tool',
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          content: message.content,
          isError: message.isError ?? false,
          status: 'ok',
          timestamp: 0,
        };
    }
  });
}
