import type { Thinking } from './thinking.js';
/** The LLM boundary: what every provider speaks, independent of any vendor SDK. */

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Opaque data the provider needs back with this call in later requests (Gemini: `gemini.thoughtSignature`). */
  metadata?: ProviderMetadata;
}

/** A piece of message content beyond plain text: tool results and user messages may carry images and documents. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; mimeType: string; /** base64 */ data: string } | DocumentPart;

/**
 * A PDF as the file itself, for providers that read documents (Anthropic `document` blocks, Gemini
 * inline `application/pdf`) within their limits; every other provider, and past those limits, gets
 * `text`, the text extracted from it (llm/image-fit.ts `fitMedia`).
 */
export interface DocumentPart {
  type: 'document';
  mimeType: 'application/pdf';
  /** base64 */
  data: string;
  /** The file's name, as the workspace names it (Anthropic's document title). */
  name: string;
  pages: number;
  text: string;
}

/**
 * Opaque data a provider needs back with a message part in later requests, keyed by provider id
 * (e.g. `{ gemini: { thoughtSignature } }`, `{ anthropic: { signature } }`). Never shown to people.
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/**
 * The model's reasoning ("thinking") in one turn. Shown to people as thinking, never as answer text;
 * `metadata` carries what the provider needs back (Anthropic: `anthropic.signature` or
 * `anthropic.redactedData`), and a provider sends back only reasoning that carries its own metadata.
 */
export interface Reasoning {
  text: string;
  metadata?: ProviderMetadata;
}

export type LlmMessage =
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; reasoning?: Reasoning[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string | ContentPart[]; isError?: boolean; metadata?: ProviderMetadata };

export type JsonSchema = Record<string, unknown>;

export interface ToolDeclaration {
  name: string;
  description: string;
  parameters: JsonSchema;
  /**
   * A deferred tool the model loaded (tools/deferred-tools.ts). Anthropic declares it with
   * `defer_loading`, so it joins the conversation where its `tool_reference` is and the cached
   * prefix (tools, system, history) stays as it was; other providers declare it as any tool.
   */
  deferLoading?: boolean;
}

export interface Usage {
  /** Input tokens billed at the full price (Anthropic's and OpenAI's cached tokens are counted apart). */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens?: number;
  /** Undefined when the provider's price for the model is unknown (local models cost nothing: 0). */
  costUsd?: number;
}

export interface ChatRequest {
  model: string;
  system?: string;
  messages: LlmMessage[];
  tools?: ToolDeclaration[];
  signal?: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
  /** How much the model may think (the `thinking` setting); unset: the provider's default. */
  thinking?: Thinking;
  /**
   * The conversation this request belongs to (its session id): OpenAI routes requests with the same
   * `prompt_cache_key` to the same cache. Providers that cache by prefix alone ignore it.
   */
  cacheKey?: string;
  /** Requests in total for this one, when fewer than the client's retry policy (compaction summaries). */
  maxAttempts?: number;
}

export type StopReason = 'stop' | 'tool_use' | 'length' | 'error' | 'aborted';

export type ProviderErrorKind =
  | 'auth' // missing or rejected key
  | 'unreachable' // host down, DNS, connection refused
  | 'model_not_found'
  | 'rate_limit' // 429 after retries
  | 'server' // 5xx after retries
  | 'network' // connection dropped mid-stream after retries
  | 'bad_request' // 400: the request itself is wrong
  | 'aborted'
  | 'unknown';

/** A provider failure as data. `message` is written for the user and says what to do next. */
export interface ProviderFailure {
  kind: ProviderErrorKind;
  message: string;
  status?: number;
  retryable: boolean;
}

export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  /** Reasoning text as it streams: show it as thinking, never as the answer. */
  | { type: 'reasoning_delta'; text: string }
  /** Something the person should know about this request (pictures left out for a model that cannot see them). */
  | { type: 'notice'; text: string }
  /** `restart`: text already streamed is discarded; the answer starts again. `maxAttempts`: the policy's requests in all. */
  | { type: 'retry'; attempt: number; delayMs: number; failure: ProviderFailure; restart?: boolean; maxAttempts?: number }
  /** `reasoning`: copy it onto the assistant message, so the next request can send it back. */
  /** `responseModel`: the model the server says answered, when it says (telemetry's gen_ai.response.model). */
  | {
      type: 'done';
      stopReason: 'stop' | 'tool_use' | 'length';
      text: string;
      toolCalls: ToolCall[];
      usage: Usage;
      reasoning?: Reasoning[];
      responseModel?: string;
    }
  | { type: 'error'; stopReason: 'error' | 'aborted'; failure: ProviderFailure; text: string; toolCalls: ToolCall[]; usage: Usage };

export interface ChatResult {
  stopReason: StopReason;
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  failure?: ProviderFailure;
}

export interface ModelInfo {
  name: string;
  provider: string;
  contextWindow?: number;
  supportsTools?: boolean;
  /** Whether the model reads pictures (Ollama: `vision` in /api/show's capabilities). */
  supportsImages?: boolean;
  description?: string;
}

/** One small interface per provider. Contract: `chatStream` must not throw; failures end the stream with an `error` event. */
export interface LLMClient {
  readonly provider: string;
  /** The model this client uses when a request names none; resolved lazily for Ollama. */
  resolveModel(signal?: AbortSignal): Promise<{ model: string; note?: string } | { failure: ProviderFailure }>;
  chatStream(request: ChatRequest): AsyncIterable<StreamEvent>;
  chat(request: ChatRequest): Promise<ChatResult>;
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>;
}

export interface ProviderOptions {
  model?: string;
  apiKey?: string;
  /** The endpoint (Ollama: the host); overrides the provider's environment variable. */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** Retry policy; tests shorten the delays. */
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /**
   * OpenAI-compatible: send `prompt_cache_key` (the session id). Defaults to on for api.openai.com and
   * off for other servers, some of which reject fields they do not know.
   */
  promptCacheKey?: boolean;
  /** False: the model cannot see pictures, so each goes as a line saying so (Ollama: overrides /api/show). */
  images?: boolean;
  /** Ollama: how long the server keeps the model (and its prompt cache) loaded after a request, e.g. "30m" or seconds. */
  keepAlive?: string | number;
  /** The provider's own settings section (`local.gpu`, `local.contextSize`...), as configured. */
  settings?: Readonly<Record<string, unknown>>;
}

/** USD per million tokens. Thinking tokens are billed as output. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Prompt-cache reads and writes; when absent, cached tokens cost the input price. */
  cacheReadPerMTok?: number;
  cacheWritePerMTok?: number;
  /** Higher prices that apply to the whole request when the prompt exceeds `threshold` tokens. */
  longContext?: { threshold: number; inputPerMTok: number; outputPerMTok: number };
}

/**
 * Failure messages of one provider, as templates: `{name}`, `{host}`, `{model}`, `{http}` ("HTTP 401"),
 * `{said}` (": the server's words"), `{tries}` (" after 3 tries"), `{detail}` are filled in. A missing
 * one falls back to a generic message that names the provider.
 */
export interface FailureHints {
  /** Display name: "Gemini", "OpenAI". */
  name: string;
  auth?: string;
  unreachable?: string;
  modelNotFound?: string;
  rateLimit?: string;
  /** When no key is set at all. */
  missingKey?: string;
  /** After "No <id> models found." in `beans models list`. */
  noModels?: string;
}

/** One `<provider>.<name>` setting the provider reads, e.g. `openai.baseUrl` set by OPENAI_BASE_URL. */
export interface ProviderSetting {
  name: string;
  /** What a value must be, as a noun phrase ("an OpenAI-compatible endpoint URL"). */
  describe: string;
  /** The environment variable that sets it. */
  env?: string;
  default?: string;
}

/**
 * Everything Beans knows about a provider. A new provider is one file exporting one of these plus
 * one `registerProvider()` call; settings, failures, prices, aliases and listings all read it.
 */
export interface ProviderDefinition {
  id: string;
  /** A one-line label for listings and help. */
  label: string;
  /** Environment variables holding the API key, in the order they are read. */
  apiKeyEnv?: readonly string[];
  /** The endpoint setting (`<id>.<name>`) and the variable that sets it. */
  endpoint?: ProviderSetting;
  /** Used when neither `model` nor `models.<id>` is set (Ollama picks an installed model instead). */
  defaultModel?: string;
  /** Maps Claude Code model aliases (sonnet, opus, haiku, fable) to a model of this provider. */
  modelAliases?: Record<string, string>;
  /** Prices by model-name prefix (the longest matching prefix wins); `'free'` for local models. */
  prices?: readonly (readonly [prefix: string, price: ModelPrice])[] | 'free';
  /** Model names matching this are priced differently from their family: no cost is reported. */
  unpriced?: RegExp;
  /** Known context windows by model-name prefix, in tokens. */
  contextWindows?: readonly (readonly [prefix: string, tokens: number])[];
  /** A sensible cap on answer length per model (providers that require one send it). */
  maxOutputTokens?: (model: string) => number;
  hints: FailureHints;
  /** True when this provider can run with the given environment (e.g. a key is present). */
  isConfigured(env: NodeJS.ProcessEnv): boolean;
  /**
   * Which of Beans' client modules talks to it. The one loader, llm/client-loader.ts, imports that
   * module on first use, so no definition imports a client (and no SDK loads at start-up).
   */
  client?: BuiltinClient;
  /** A client made by the definition itself (a provider registered in code); used instead of `client`. */
  create?(options: ProviderOptions): LLMClient | Promise<LLMClient>;
}

/** Beans' own client modules: `<name>-client.ts` in llm/. */
export type BuiltinClient = 'anthropic' | 'gemini' | 'local' | 'ollama' | 'openai';
