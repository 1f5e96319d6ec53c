// A session's transcript, built from its event stream: the stream-json messages (with partial
// messages and the user's prompts replayed) and the permission questions. Plain data, rebuilt by
// `applyMessage` one message at a time; the views only draw it.

interface UserItem {
  kind: 'user';
  key: string;
  text: string;
  pictures: number;
}
interface AssistantItem {
  kind: 'assistant';
  key: string;
  text: string;
  thinking: string;
  /** Still streaming (partial messages). */
  live: boolean;
}
export interface ToolItem {
  kind: 'tool';
  key: string;
  id: string;
  name: string;
  input: Record<string, unknown>;
  result?: { text: string; isError: boolean };
  /** Answered no (or the question was withdrawn). */
  denied?: boolean;
}
export interface QuestionItem {
  kind: 'question';
  key: string;
  requestId: string;
  toolName: string;
  input: Record<string, unknown>;
  resolved?: 'allow' | 'deny' | 'cancelled';
}
interface ResultItem {
  kind: 'result';
  key: string;
  ok: boolean;
  subtype: string;
  costUsd: number;
  durationMs: number;
  errors: string[];
}
interface NoticeItem {
  kind: 'notice';
  key: string;
  text: string;
}

export type Item = UserItem | AssistantItem | ToolItem | QuestionItem | ResultItem | NoticeItem;

export interface Transcript {
  items: Item[];
  model?: string;
  provider?: string;
  cwd?: string;
  permissionMode?: string;
  /** Every result's cost added up (what this server's runs spent). */
  costUsd: number;
  /** Tokens the newest request's prompt and answer took, as the provider counted them. */
  contextTokens: number;
  contextWindow?: number;
  /** A turn is running (between the user's message and its result). */
  running: boolean;
}

export const emptyTranscript = (): Transcript => ({ items: [], costUsd: 0, contextTokens: 0, running: false });

// The parts of the wire's messages the transcript reads; every field is checked before use, since a
// newer server may send more or other shapes.
interface WireBlock {
  type?: string;
  text?: unknown;
  thinking?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  is_error?: unknown;
}
interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}
interface WireEvent {
  type?: string;
  delta?: { type?: string; text?: unknown };
  usage?: WireUsage;
}
interface WireMessage {
  type?: string;
  subtype?: string;
  parent_tool_use_id?: string | null;
  model?: string;
  provider?: string;
  cwd?: string;
  permissionMode?: string;
  message?: { content?: unknown } | string;
  event?: WireEvent;
  request_id?: unknown;
  tool_name?: unknown;
  input?: unknown;
  behavior?: QuestionItem['resolved'];
  total_cost_usd?: unknown;
  modelUsage?: Record<string, { contextWindow?: number }>;
  is_error?: unknown;
  duration_ms?: unknown;
  errors?: unknown;
  to?: unknown;
  reason?: unknown;
}
type WireBody = { content?: unknown } | undefined;

/** The transcript after one more message (a new object; items that did not change keep their identity). */
export function applyMessage(transcript: Transcript, raw: unknown, key: string): Transcript {
  const message = raw as WireMessage;
  if (!message || typeof message !== 'object') return transcript;
  // A subagent's own messages belong to its task call, which shows its answer.
  if (message.parent_tool_use_id) return transcript;
  const next: Transcript = { ...transcript, items: transcript.items };
  switch (message.type) {
    case 'system':
      if (message.subtype === 'init') {
        next.model = message.model;
        next.provider = message.provider;
        next.cwd = message.cwd;
        next.permissionMode = message.permissionMode;
      } else if (message.subtype === 'compact_boundary') {
        next.contextTokens = 0;
        next.items = [...next.items, { kind: 'notice', key, text: 'The conversation was compacted.' }];
      } else if (message.subtype === 'warning' && typeof message.message === 'string') {
        next.items = [...next.items, { kind: 'notice', key, text: message.message }];
      } else if (message.subtype === 'handoff') {
        next.items = [
          ...next.items,
          { kind: 'notice', key, text: `Handed off to ${String(message.to)}: ${typeof message.reason === 'string' ? message.reason : ''}` },
        ];
      }
      return next;
    case 'stream_event':
      return streamEvent(next, message.event, key);
    case 'assistant':
      return assistantMessage(next, bodyOf(message.message), key);
    case 'user':
      return userMessage(next, bodyOf(message.message), key);
    case 'permission_request':
      next.items = [
        ...next.items,
        { kind: 'question', key, requestId: String(message.request_id), toolName: String(message.tool_name), input: objectOf(message.input) },
      ];
      return next;
    case 'permission_resolved':
      next.items = next.items.map((item) =>
        item.kind === 'question' && item.requestId === message.request_id ? { ...item, resolved: message.behavior } : item,
      );
      return next;
    case 'result': {
      next.running = false;
      next.costUsd = transcript.costUsd + (Number(message.total_cost_usd) || 0);
      for (const usage of Object.values(message.modelUsage ?? {})) {
        if (typeof usage.contextWindow === 'number' && usage.contextWindow > 0) next.contextWindow = usage.contextWindow;
      }
      next.items = [
        ...settled(next.items),
        {
          kind: 'result',
          key,
          ok: message.is_error !== true,
          subtype: String(message.subtype),
          costUsd: Number(message.total_cost_usd) || 0,
          durationMs: Number(message.duration_ms) || 0,
          errors: Array.isArray(message.errors) ? message.errors.map(String) : [],
        },
      ];
      return next;
    }
    default:
      return transcript;
  }
}

function streamEvent(next: Transcript, event: WireEvent | undefined, key: string): Transcript {
  if (!event) return next;
  if (event.type === 'message_start') {
    next.running = true;
    next.items = [...withoutLive(next.items), { kind: 'assistant', key, text: '', thinking: '', live: true }];
  } else if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
    const last = next.items[next.items.length - 1];
    if (last?.kind === 'assistant' && last.live) next.items = [...next.items.slice(0, -1), { ...last, text: last.text + String(event.delta.text) }];
  } else if (event.type === 'message_delta' && event.usage) {
    const usage = event.usage;
    const prompt = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
    if (prompt > 0) next.contextTokens = prompt + (usage.output_tokens ?? 0);
  }
  return next;
}

function assistantMessage(next: Transcript, body: WireBody, key: string): Transcript {
  const content = Array.isArray(body?.content) ? (body.content as WireBlock[]) : [];
  const text = content
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('\n\n');
  const thinking = content
    .filter((block) => block.type === 'thinking')
    .map((block) => String(block.thinking))
    .join('\n\n');
  const items = withoutLive(next.items);
  const added: Item[] = [];
  if (text || thinking) added.push({ kind: 'assistant', key, text, thinking, live: false });
  content.forEach((block, index) => {
    if (block.type === 'tool_use')
      added.push({ kind: 'tool', key: `${key}.${index}`, id: String(block.id), name: String(block.name), input: objectOf(block.input) });
  });
  next.running = true;
  next.items = [...items, ...added];
  return next;
}

function userMessage(next: Transcript, body: WireBody, key: string): Transcript {
  const content = body?.content;
  if (typeof content === 'string') {
    next.running = true;
    next.items = [...next.items, { kind: 'user', key, text: content, pictures: 0 }];
    return next;
  }
  if (!Array.isArray(content)) return next;
  const results = (content as WireBlock[]).filter((block) => block.type === 'tool_result');
  if (results.length === 0) {
    const text = (content as WireBlock[])
      .filter((block) => block.type === 'text')
      .map((block) => String(block.text))
      .join('\n');
    const pictures = (content as WireBlock[]).filter((block) => block.type === 'image').length;
    next.running = true;
    next.items = [...next.items, { kind: 'user', key, text, pictures }];
    return next;
  }
  next.items = next.items.map((item) => {
    if (item.kind !== 'tool') return item;
    const result = results.find((block) => block.tool_use_id === item.id);
    if (!result) return item;
    const text = resultText(result.content);
    return { ...item, result: { text, isError: result.is_error === true }, denied: result.is_error === true && /^Permission denied/i.test(text) };
  });
  return next;
}

/** A tool result's text: a string, or its text blocks (pictures say so). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as WireBlock[]).map((block) => (block.type === 'text' ? String(block.text) : block.type === 'image' ? '[picture]' : '')).join('\n');
}

/** A streaming answer that ended without its final message (a retry, a stop) goes. */
function withoutLive(items: Item[]): Item[] {
  const last = items[items.length - 1];
  return last?.kind === 'assistant' && last.live ? items.slice(0, -1) : items;
}

/** At the end of a run, a partial answer that never got its final message stays as it was. */
function settled(items: Item[]): Item[] {
  const last = items[items.length - 1];
  if (last?.kind !== 'assistant' || !last.live) return items;
  return last.text ? [...items.slice(0, -1), { ...last, live: false }] : items.slice(0, -1);
}

function bodyOf(message: WireMessage['message']): WireBody {
  return message && typeof message === 'object' ? message : undefined;
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Questions still waiting for an answer. */
export function openQuestions(transcript: Transcript): QuestionItem[] {
  return transcript.items.filter((item): item is QuestionItem => item.kind === 'question' && !item.resolved);
}
