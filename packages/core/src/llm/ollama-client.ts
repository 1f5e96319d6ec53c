import { ollamaThink } from './thinking.js';
import { Ollama, type ChatRequest as OllamaChatRequest, type Message, type ShowResponse, type Tool } from 'ollama';
import { collectStream } from './collect.js';
import { failureToError, type FailureContext } from './failures.js';
import { FetchResponse } from './fetch-response.js';
import type { FetchFunction } from './http-fetch.js';
import { providerFetch } from './provider-fetch.js';
import { ollamaProvider, resolveOllamaHost } from './ollama.js';
import { parseRetryAfter, retryPolicy, streamWithRetry, withRetry, type AttemptChunk, type AttemptResult } from './retry.js';
import { newToolCallId } from './tool-call-ids.js';
import type {
  ChatRequest,
  ContentPart,
  LLMClient,
  LlmMessage,
  ModelInfo,
  ProviderFailure,
  ProviderOptions,
  StreamEvent,
  ToolCall,
  ToolDeclaration,
} from './types.js';
import { blindView, fitMedia, type MediaLimits } from './image-fit.js';

// Ollama documents no limit, but its vision models read at most ~1,120 px (llama3.2-vision) and the
// whole picture crosses into the model's memory: more pixels cost time, not detail.
export const MEDIA_LIMITS: MediaLimits = { image: { maxLongSide: 2048, maxBytes: 10 * 1024 * 1024 } };

/** Listing and inspecting models is local and quick; a host that does not answer in this time is down. */
const LOOKUP_TIMEOUT_MS = 10_000;
/** Above this many installed models, listModels skips the per-model /api/show calls. */
const MAX_SHOW_CALLS = 32;

type ResolvedModel = { model: string; note?: string } | { failure: ProviderFailure };

export function createOllamaClient(options: ProviderOptions = {}): LLMClient {
  const host = resolveOllamaHost(options.env ?? process.env, options.baseUrl);
  const configuredModel = options.model || undefined;
  const policy = retryPolicy(options.retry);
  const context: FailureContext = { provider: 'ollama', host, hints: ollamaProvider.hints };
  let picked: { model: string; note?: string } | undefined;
  // Per model: whether it reads pictures (the `ollama.images` setting, else /api/show), and whether the person was told it does not.
  const sight = new Map<string, Promise<boolean>>();
  const told = new Set<string>();

  function seesImages(model: string, signal: AbortSignal | undefined): Promise<boolean> {
    const setting = options.images ?? options.settings?.images;
    if (typeof setting === 'boolean') return Promise.resolve(setting);
    let known = sight.get(model);
    if (!known) {
      // Ollama before 0.6.4 reports no capabilities, and a lookup that fails says nothing: then the picture goes.
      known = connect(signal, LOOKUP_TIMEOUT_MS)
        .ollama.show({ model })
        .then((show) => !Array.isArray(show.capabilities) || show.capabilities.includes('vision'))
        .catch(() => true);
      sight.set(model, known);
    }
    return known;
  }

  /** The request's messages as this model can take them: pictures scaled, or a line each for a model that cannot see. */
  async function messagesFor(
    model: string,
    messages: readonly LlmMessage[],
    signal: AbortSignal | undefined,
  ): Promise<{ messages: LlmMessage[]; notice?: string }> {
    const hasImages = messages.some(
      (message) => message.role !== 'assistant' && Array.isArray(message.content) && message.content.some((part) => part.type === 'image'),
    );
    if (!hasImages || (await seesImages(model, signal))) return { messages: await fitMedia(messages, MEDIA_LIMITS) };
    return blindView(
      model,
      await fitMedia(messages, MEDIA_LIMITS),
      told,
      'Pick a vision model (`ollama show <model>` lists "vision"), or set "ollama": {"images": true} if it can.',
    );
  }

  function connect(signal: AbortSignal | undefined, timeoutMs?: number): { ollama: Ollama; retryAfterMs: () => number | undefined } {
    let retryAfter: number | undefined;
    const fetchWithSignal = ollamaFetch(signal, timeoutMs, (ms) => (retryAfter = ms));
    return { ollama: new Ollama({ host, fetch: fetchWithSignal }), retryAfterMs: () => retryAfter };
  }

  async function resolveModel(signal?: AbortSignal): Promise<ResolvedModel> {
    if (configuredModel) return { model: configuredModel };
    if (picked) return picked;
    const result = await withRetry((attemptSignal) => pickToolModel(connect(attemptSignal, LOOKUP_TIMEOUT_MS).ollama, host), { policy, signal, context });
    if ('failure' in result) return result;
    if ('model' in result.value) picked = result.value;
    return result.value;
  }

  async function* chatStream(request: ChatRequest): AsyncGenerator<StreamEvent, void> {
    let model = request.model;
    if (!model) {
      const resolved = await resolveModel(request.signal);
      if ('failure' in resolved) {
        const stopReason = resolved.failure.kind === 'aborted' ? 'aborted' : 'error';
        yield { type: 'error', stopReason, failure: resolved.failure, text: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
        return;
      }
      model = resolved.model;
    }
    const fitted = await messagesFor(model, request.messages, request.signal);
    if (fitted.notice) yield { type: 'notice', text: fitted.notice };
    const body: OllamaChatRequest & { stream: true } = {
      model,
      messages: toOllamaMessages(request.system, fitted.messages),
      stream: true,
      ...(request.tools && request.tools.length > 0 ? { tools: toOllamaTools(request.tools) } : {}),
      // The server reuses its KV cache for a prompt that starts like the last one, while the model stays loaded.
      ...(options.keepAlive !== undefined ? { keep_alive: ollamaKeepAlive(options.keepAlive) } : {}),
      ...ollamaThink(request.thinking),
      ...(request.temperature !== undefined || request.maxOutputTokens !== undefined
        ? {
            options: {
              ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
              ...(request.maxOutputTokens !== undefined ? { num_predict: request.maxOutputTokens } : {}),
            },
          }
        : {}),
    };
    let retryAfterMs: () => number | undefined = () => undefined;
    yield* streamWithRetry({
      policy: request.maxAttempts ? { ...policy, maxAttempts: Math.min(policy.maxAttempts, request.maxAttempts) } : policy,
      signal: request.signal,
      context: { ...context, model },
      retryAfterMs: () => retryAfterMs(),
      costUsd: () => 0,
      attempt: (signal) => {
        const connection = connect(signal);
        retryAfterMs = connection.retryAfterMs;
        return chatOnce(connection.ollama, body);
      },
    });
  }

  return {
    provider: 'ollama',
    resolveModel,
    chatStream,
    chat: (request) => collectStream(chatStream(request)),
    async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
      const result = await withRetry((attemptSignal) => listInstalled(connect(attemptSignal, LOOKUP_TIMEOUT_MS).ollama), { policy, signal, context });
      if ('failure' in result) throw failureToError(result.failure);
      return result.value;
    },
  };
}

async function* chatOnce(ollama: Ollama, body: OllamaChatRequest & { stream: true }): AsyncGenerator<AttemptChunk, AttemptResult> {
  const stream = await ollama.chat(body);
  let finished = false;
  try {
    for await (const part of stream) {
      const message = part.message;
      if (message?.content) yield { type: 'text_delta', text: message.content };
      for (const call of message?.tool_calls ?? []) yield { type: 'tool_call', call: toToolCall(call) };
      if (part.done) {
        finished = true;
        const usage = { inputTokens: part.prompt_eval_count ?? 0, outputTokens: part.eval_count ?? 0 };
        return { stopReason: part.done_reason === 'length' ? 'length' : 'stop', usage };
      }
    }
    finished = true;
    // ollama-js throws when the stream ends without `done`; this is the same condition, stated here too.
    throw new Error('Did not receive done or success response in stream.');
  } finally {
    if (!finished) stream.abort(); // the caller stopped early: close the connection
  }
}

/** Ollama reads a number as seconds and a string as a Go duration ("30m"): bare digits are sent as a number. */
function ollamaKeepAlive(value: string | number): string | number {
  return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
}

function toToolCall(call: { function: { name: string; arguments: unknown }; id?: unknown }): ToolCall {
  return { id: typeof call.id === 'string' && call.id ? call.id : newToolCallId(), name: call.function.name, arguments: toArguments(call.function.arguments) };
}

/** Some models put a JSON string where Ollama documents an object. */
function toArguments(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function toOllamaMessages(system: string | undefined, messages: readonly LlmMessage[]): Message[] {
  const out: Message[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        out.push({ role: 'user', ...ollamaContent(message.content) });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls && message.toolCalls.length > 0
            ? { tool_calls: message.toolCalls.map((call) => ({ function: { name: call.name, arguments: call.arguments } })) }
            : {}),
        });
        break;
      case 'tool':
        out.push({ role: 'tool', ...ollamaContent(message.content), tool_name: message.toolName });
        break;
    }
  }
  return out;
}

/** Ollama takes text plus a list of base64 images per message. */
function ollamaContent(content: string | readonly ContentPart[]): { content: string; images?: string[] } {
  if (typeof content === 'string') return { content };
  const images = content.filter((part) => part.type === 'image').map((part) => part.data);
  const text = content.flatMap((part) => (part.type === 'image' ? [] : [part.text])).join('\n');
  return images.length > 0 ? { content: text, images } : { content: text };
}

export function toOllamaTools(tools: readonly ToolDeclaration[]): Tool[] {
  // Ollama's Tool type narrows JSON Schema; the server accepts any schema object.
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

async function pickToolModel(ollama: Ollama, host: string): Promise<ResolvedModel> {
  const { models } = await ollama.list();
  if (models.length === 0) {
    return {
      failure: {
        kind: 'model_not_found',
        message: `No models are installed in Ollama at ${host}. Pull one that supports tools, e.g. \`ollama pull qwen3\`, then run Beans again.`,
        retryable: false,
      },
    };
  }
  const names = models.map((m) => m.model || m.name);
  const shows = await Promise.all(names.map((model) => ollama.show({ model })));
  const index = shows.findIndex((show) => show.capabilities?.includes('tools'));
  if (index >= 0) {
    return {
      model: names[index],
      note: `No model configured; using ${names[index]}, the first installed Ollama model that supports tools. Choose another with --model.`,
    };
  }
  // Ollama before 0.6.4 did not report capabilities: nothing to go by but the list order.
  if (!shows.some((show) => Array.isArray(show.capabilities))) {
    return {
      model: names[0],
      note: `No model configured; using ${names[0]}, the first installed Ollama model (this Ollama does not report which models support tools). Choose another with --model.`,
    };
  }
  return {
    failure: {
      kind: 'model_not_found',
      message: `None of the models installed in Ollama at ${host} (${names.join(', ')}) supports tool calling, which Beans needs. Pull one that does, e.g. \`ollama pull qwen3\`, or pass one with --model.`,
      retryable: false,
    },
  };
}

async function listInstalled(ollama: Ollama): Promise<ModelInfo[]> {
  const { models } = await ollama.list();
  const names = models.map((m) => m.model || m.name);
  const shows: (ShowResponse | undefined)[] = names.length <= MAX_SHOW_CALLS ? await Promise.all(names.map((model) => ollama.show({ model }))) : [];
  return names.map((name, i) => {
    const show = shows[i];
    const details = models[i].details;
    const contextWindow = show ? contextLength(show) : undefined;
    return {
      name,
      provider: 'ollama',
      ...(contextWindow ? { contextWindow } : {}),
      ...(Array.isArray(show?.capabilities)
        ? { supportsTools: show.capabilities.includes('tools'), supportsImages: show.capabilities.includes('vision') }
        : {}),
      ...(details?.parameter_size ? { description: [details.family, details.parameter_size, details.quantization_level].filter(Boolean).join(' ') } : {}),
    };
  });
}

/** model_info holds "<architecture>.context_length"; the SDK types it as a Map but it arrives as an object. */
function contextLength(show: ShowResponse): number | undefined {
  const info: unknown = show.model_info;
  if (!info || typeof info !== 'object') return undefined;
  const entries = info instanceof Map ? [...info.entries()] : Object.entries(info);
  for (const [key, value] of entries) {
    if (String(key).endsWith('.context_length') && typeof value === 'number') return value;
  }
  return undefined;
}

/**
 * The fetch given to ollama-js (node:http, provider-fetch.ts): adds the caller's signal (ollama-js takes none) and an optional
 * timeout, remembers Retry-After, and turns non-JSON error bodies into JSON, because ollama-js
 * logs to stdout when it meets one and core must never write to stdout.
 */
function ollamaFetch(signal: AbortSignal | undefined, timeoutMs: number | undefined, onRetryAfter: (ms: number | undefined) => void): FetchFunction {
  return async (input, init) => {
    const signals = [init?.signal, signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => !!s);
    const response = await providerFetch(input, { ...init, ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}) });
    if (response.ok) return response;
    onRetryAfter(parseRetryAfter(response.headers.get('retry-after')));
    if (response.headers.get('content-type')?.includes('application/json')) return response;
    const text = await response.text().catch(() => '');
    const error = text.trim() || response.statusText || `HTTP ${response.status}`;
    // fetch-response.ts's Response: a retried error does not load undici either.
    return new FetchResponse(JSON.stringify({ error }), {
      status: response.status,
      statusText: response.statusText,
      headers: { 'content-type': 'application/json' },
    });
  };
}
