/**
 * Scripts for the scripted LLM servers. A server answers a chat request with turn N, where N is the
 * number of assistant (Ollama) or model (Gemini) messages already in the request's history, clamped
 * to the last turn. It keeps no conversation state, so a resumed session continues where it was.
 *
 * Plain erasable TypeScript with `.ts` imports: vitest and `node file.ts` (Node >= 23.6) both load it.
 */
import { readFileSync } from 'node:fs';

/** `id` is sent when given (Gemini 3 and newer Ollama send ids); `thoughtSignature` is Gemini only. */
type ScriptToolCall = { name: string; args: Record<string, unknown>; id?: string; thoughtSignature?: string };

export type ScriptTurn = {
  /** The answer's text; an array is sent as that many chunks. */
  text?: string | string[];
  /** Sent together after the text, in one chunk, as models do. */
  toolCalls?: ScriptToolCall[];
  /** Reasoning ("thinking") sent before the text: OpenAI-compatible `reasoning_content`, Anthropic thinking blocks (signed `sig-<turn>`). */
  reasoning?: string | string[];
  /** Token counts to report; by default about a quarter of the request and answer sizes. Cache counts: OpenAI and Anthropic only. */
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /** Pause before each chunk after the first. */
  chunkDelayMs?: number;
  /** Drop the connection after this many chunks (0: before the response headers). */
  cutAfterChunks?: number;
  /** Serve this HTTP error instead of an answer (a turn function can fail some requests and not others). */
  fault?: ScriptFault;
};

/**
 * An HTTP error served instead of a turn. Faults form a queue, one per chat request, before any
 * turn is served (two 429s then success: `[{status: 429}, {status: 429}]`); `always` serves it on
 * every request. Status 0 drops the connection without answering. Only chat requests meet faults.
 */
export type ScriptFault = { status: number; body?: unknown; headers?: Record<string, string>; always?: boolean };

export type RequestKind = 'chat' | 'models' | 'show' | 'version' | 'other';

export type RecordedRequest = {
  method: string;
  /** Path with the query string. */
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when there was none or it was not JSON). */
  body: unknown;
  /** Size of the raw body in bytes. */
  bytes: number;
  /** Arrival, in milliseconds since the epoch (fractional). */
  time: number;
  kind: RequestKind;
  /** For chat requests: the turn served, or undefined when a fault was served. */
  turn?: number;
  /** For chat requests answered with a fault: its status. */
  fault?: number;
  /** With `promptCache`: what the server billed for this request (tokens at full price, read from and written to the cache). */
  bill?: { input: number; cacheRead: number; cacheWrite: number };
};

export type TurnSource = ScriptTurn[] | ((request: RecordedRequest, n: number) => ScriptTurn);

/** An installed (Ollama) or listed (Gemini) model. */
export type ScriptModel = { name: string; capabilities?: string[]; contextLength?: number; family?: string; parameterSize?: string };

export type ScriptOptions = {
  turns: TurnSource;
  faults?: ScriptFault[];
  /** Models to list. When given, a chat naming any other model gets the provider's 404. */
  models?: ScriptModel[];
  /** Gemini, OpenAI, Anthropic: when set, any other key gets the provider's real rejection. */
  apiKey?: string;
  /** Defaults to 0 (the OS picks a free port). */
  port?: number;
  /** Called for every request as it arrives (serve.ts logs with it). */
  onRequest?: (request: RecordedRequest) => void;
  /**
   * Bill prompt caching the way the provider does (prompt-cache.ts): usage then reports cache reads,
   * writes and the rest, unless a turn gives its own `usage`. Anthropic, OpenAI and Gemini.
   */
  promptCache?: boolean;
  /** The model the answer says it came from, by the one asked for (a real API resolves an alias to a dated snapshot). Anthropic, OpenAI, Ollama. */
  answerModel?: (requested: string) => string;
};

export type ScriptedServer = {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

/** The newest user message's text of a request (what the turn was asked; its parts as JSON when it has parts). */
export function lastUser(request: RecordedRequest): string {
  const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const last = messages.findLast((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/** A request that starts a turn for `prompt` (not one that follows a tool result inside the turn). */
export const asks = (request: RecordedRequest, prompt: string): boolean =>
  request.kind === 'chat' && lastUser(request).includes(prompt) && !lastUser(request).includes('tool_result');

/** The JSON a script file holds: a bare array of turns, or an object. */
type ScriptFile = ScriptTurn[] | { turns: ScriptTurn[]; faults?: ScriptFault[]; models?: ScriptModel[]; apiKey?: string; promptCache?: boolean };

export function loadScriptFile(path: string): Omit<ScriptOptions, 'port' | 'onRequest'> {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as ScriptFile;
  if (Array.isArray(parsed)) return { turns: parsed };
  if (!parsed || !Array.isArray(parsed.turns)) throw new Error(`${path}: expected an array of turns or {"turns": [...]}`);
  return parsed;
}

export function pickTurn(turns: TurnSource, request: RecordedRequest, n: number): ScriptTurn {
  if (typeof turns === 'function') return turns(request, n);
  if (turns.length === 0) return { text: '' };
  return turns[Math.min(n, turns.length - 1)];
}

export function textChunks(turn: ScriptTurn): string[] {
  if (turn.text === undefined) return [];
  return (Array.isArray(turn.text) ? turn.text : [turn.text]).filter((chunk) => chunk !== '');
}

export function reasoningChunks(turn: ScriptTurn): string[] {
  if (turn.reasoning === undefined) return [];
  return (Array.isArray(turn.reasoning) ? turn.reasoning : [turn.reasoning]).filter((chunk) => chunk !== '');
}

/** A tool call's arguments as the JSON pieces a streaming API sends (two halves, like real servers split them). */
export function argumentPieces(args: Record<string, unknown>): string[] {
  const json = JSON.stringify(args);
  const middle = Math.ceil(json.length / 2);
  return [json.slice(0, middle), json.slice(middle)].filter((piece) => piece !== '');
}

export function turnUsage(
  turn: ScriptTurn,
  requestBytes: number,
  bill?: RecordedRequest['bill'],
): { input: number; output: number; cacheRead?: number; cacheWrite?: number } {
  if (turn.usage) return turn.usage;
  const textLength = textChunks(turn).join('').length;
  const output = Math.ceil(textLength / 4) + 10 * (turn.toolCalls?.length ?? 0);
  if (bill) return { input: bill.input, output, cacheRead: bill.cacheRead, cacheWrite: bill.cacheWrite };
  return { input: Math.max(1, Math.ceil(requestBytes / 4)), output };
}

/** Hands out faults: queued ones once each, then `always` ones forever. */
export function faultQueue(faults: ScriptFault[] = []): () => ScriptFault | undefined {
  const queue = [...faults];
  return () => {
    const head = queue[0];
    if (!head) return undefined;
    if (!head.always) queue.shift();
    return head;
  };
}
