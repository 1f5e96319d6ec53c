/** The LLM boundary: what every provider speaks, independent of any vendor SDK. */

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Opaque data the provider needs back with this call in later requests (Gemini's thought signature). */
  signature?: string;
}

/** A piece of message content beyond plain text: tool results and user messages may carry images. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; mimeType: string; /** base64 */ data: string };

/**
 * Opaque data a provider needs back with a message part in later requests, keyed by provider id
 * (e.g. `{ gemini: { thoughtSignature } }`, `{ anthropic: { signature } }`). Never shown to people.
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

export type LlmMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

export type JsonSchema = Record<string, unknown>;

export interface ToolDeclaration {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
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
  /** `restart`: text already streamed is discarded; the answer starts again. */
  | { type: 'retry'; attempt: number; delayMs: number; failure: ProviderFailure; restart?: boolean }
  | { type: 'done'; stopReason: 'stop' | 'tool_use' | 'length'; text: string; toolCalls: ToolCall[]; usage: Usage }
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
  /** Gemini endpoint or Ollama host. */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** Retry policy; tests shorten the delays. */
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
}

export interface ProviderDefinition {
  id: string;
  /** A one-line label for listings. */
  label: string;
  /** True when this provider can run with the given environment (e.g. a key is present). */
  isConfigured(env: NodeJS.ProcessEnv): boolean;
  create(options: ProviderOptions): LLMClient | Promise<LLMClient>;
  /** Maps Claude Code model aliases (sonnet, opus, haiku, fable) to a model of this provider. */
  modelAliases?: Record<string, string>;
}
