import { openAiReasoningEffort } from './thinking.js';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { collectStream } from './collect.js';
import { failureToError, type FailureContext } from './failures.js';
import { costUsd } from './pricing.js';
import { apiKeyFrom, longestPrefix, missingKeyFailure } from './provider-info.js';
import { providerFetch } from './provider-fetch.js';
import { retryPolicy, streamWithRetry, withRetry, type AttemptChunk, type AttemptResult } from './retry.js';
import { newToolCallId } from './tool-call-ids.js';
import type {
  ChatRequest,
  ContentPart,
  LLMClient,
  LlmMessage,
  ModelInfo,
  ProviderDefinition,
  ProviderOptions,
  StreamEvent,
  ToolDeclaration,
  Usage,
} from './types.js';
import { blindView, fitMedia, type MediaLimits } from './image-fit.js';

// OpenAI fits high-detail pictures in 2,048 × 2,048 and takes up to 20 MB each.
export const MEDIA_LIMITS: MediaLimits = { image: { maxLongSide: 2048, maxBytes: 20 * 1024 * 1024 } };

// Local servers (LM Studio, llama.cpp) need no key, but the client insists on a string.
const NO_KEY = 'not-needed';

/**
 * A Chat Completions client for OpenAI or any compatible server. `definition` supplies the key
 * variables, the endpoint variable and the default model, so custom endpoints from settings reuse it.
 * `keyRequired: false` (a custom endpoint without `apiKeyEnv`) sends a placeholder key.
 */
export function createOpenAiClient(definition: ProviderDefinition, options: ProviderOptions = {}, keyRequired = true): LLMClient {
  const env = options.env ?? process.env;
  const apiKey = options.apiKey?.trim() || apiKeyFrom(definition, env) || (keyRequired ? undefined : NO_KEY);
  const endpointEnv = definition.endpoint?.env;
  const baseURL = options.baseUrl || (endpointEnv ? env[endpointEnv]?.trim() : undefined) || definition.endpoint?.default || 'https://api.openai.com/v1';
  const defaultModel = options.model || definition.defaultModel || '';
  const policy = retryPolicy(options.retry);
  const sendCacheKey = options.promptCacheKey ?? isOfficialOpenAi(baseURL);
  // Models told they cannot see pictures (`images: false`), and whether the person was told.
  const told = new Set<string>();
  const context: FailureContext = { provider: definition.id, host: baseURL, hints: definition.hints };
  // maxRetries 0: Beans' own retry policy decides, with the same messages for every provider.
  // providerFetch: node:http instead of Node's fetch, answering with Beans' undici-free Response
  // (provider-fetch.ts), cheaper at start-up.
  const openai = apiKey ? new OpenAI({ apiKey, baseURL, maxRetries: 0, timeout: 10 * 60_000, fetch: providerFetch }) : undefined;

  async function* chatStream(request: ChatRequest): AsyncGenerator<StreamEvent, void> {
    const model = request.model || defaultModel;
    if (!openai) {
      yield { type: 'error', stopReason: 'error', failure: missingKeyFailure(definition), text: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
      return;
    }
    const fitted = await fitMedia(request.messages, MEDIA_LIMITS);
    const view = options.images === false ? blindView(model, fitted, told, `Set "images": true in the provider's settings if it can.`) : { messages: fitted };
    if (view.notice) yield { type: 'notice', text: view.notice };
    const body = {
      model,
      messages: toOpenAiMessages(request.system, view.messages),
      stream: true as const,
      stream_options: { include_usage: true },
      ...(request.tools && request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxOutputTokens !== undefined ? { max_completion_tokens: request.maxOutputTokens } : {}),
      ...openAiReasoningEffort(request.thinking),
      // Caching is automatic for a prefix of 1,024 tokens or more; the key keeps one conversation's
      // requests on the same cache. Last in the body: it is not part of the prompt.
      ...(sendCacheKey && request.cacheKey ? { prompt_cache_key: request.cacheKey } : {}),
    };
    yield* streamWithRetry({
      policy: request.maxAttempts ? { ...policy, maxAttempts: Math.min(policy.maxAttempts, request.maxAttempts) } : policy,
      signal: request.signal,
      context: { ...context, model },
      costUsd: (usage) => costUsd(definition.id, model, usage),
      attempt: (signal) => streamOnce(openai, body, signal),
    });
  }

  return {
    provider: definition.id,
    async resolveModel() {
      if (!openai) return { failure: missingKeyFailure(definition) };
      if (!defaultModel)
        return {
          failure: {
            kind: 'model_not_found',
            message: `No model is configured for ${definition.hints.name}. Run \`beans models list --provider ${definition.id}\` and pick one with --model.`,
            retryable: false,
          },
        };
      return { model: defaultModel };
    },
    chatStream,
    chat: (request) => collectStream(chatStream(request)),
    async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
      if (!openai) throw failureToError(missingKeyFailure(definition));
      const result = await withRetry(
        async (attemptSignal) => {
          const models: ModelInfo[] = [];
          for await (const model of openai.models.list({ signal: attemptSignal })) {
            const window = definition.contextWindows ? longestPrefix(definition.contextWindows, model.id) : undefined;
            models.push({
              name: model.id,
              provider: definition.id,
              ...(window ? { contextWindow: window } : {}),
              ...(model.owned_by ? { description: `owned by ${model.owned_by}` } : {}),
            });
          }
          return models.sort((a, b) => a.name.localeCompare(b.name));
        },
        { policy, signal, context },
      );
      if ('failure' in result) throw failureToError(result.failure);
      return result.value;
    },
  };
}

/** The official API accepts `prompt_cache_key`; a compatible server may not. */
function isOfficialOpenAi(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

type StreamBody = Parameters<OpenAI['chat']['completions']['create']>[0] & { stream: true };

/** A delta as compatible servers send it: DeepSeek and vLLM name reasoning `reasoning_content`, OpenRouter and Ollama `reasoning`. */
type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

async function* streamOnce(openai: OpenAI, body: StreamBody, signal: AbortSignal | undefined): AsyncGenerator<AttemptChunk, AttemptResult> {
  const stream = await openai.chat.completions.create(body, signal ? { signal } : {});
  // Tool calls arrive in pieces keyed by index: the first piece has id and name, later ones more arguments.
  const calls = new Map<number, { id: string; name: string; args: string }>();
  let finishReason: string | null | undefined;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let reasoning = '';
  let responseModel: string | undefined;
  for await (const chunk of stream) {
    if (chunk.model) responseModel = chunk.model;
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      usage = { inputTokens: chunk.usage.prompt_tokens - cached, outputTokens: chunk.usage.completion_tokens, ...(cached ? { cacheReadTokens: cached } : {}) };
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Delta;
    const thought = delta.reasoning_content ?? delta.reasoning;
    if (typeof thought === 'string' && thought) {
      reasoning += thought;
      yield { type: 'reasoning_delta', text: thought };
    }
    if (delta.content) yield { type: 'text_delta', text: delta.content };
    for (const piece of delta.tool_calls ?? []) {
      const call = calls.get(piece.index) ?? { id: '', name: '', args: '' };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.args += piece.function.arguments;
      calls.set(piece.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  // A body that ends without a finish reason was cut off (the SDK does not insist on [DONE]).
  if (!finishReason) throw new Error('premature close');
  for (const index of [...calls.keys()].sort((a, b) => a - b)) {
    const call = calls.get(index)!;
    yield { type: 'tool_call', call: { id: call.id || newToolCallId(), name: call.name, arguments: parseArguments(call.args) } };
  }
  return {
    stopReason: finishReason === 'length' ? 'length' : 'stop',
    usage,
    ...(reasoning ? { reasoning: [{ text: reasoning }] } : {}),
    ...(responseModel ? { responseModel } : {}),
  };
}

/** Arguments are a JSON string; a model that sends broken JSON gets its text back as `_raw` so the tool's validation explains. */
function parseArguments(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { _raw: text };
  } catch {
    return { _raw: text };
  }
}

/**
 * LLM messages to Chat Completions messages. Reasoning is never sent back (servers that send it
 * reject or ignore it). Tool messages may hold only text, so images in a tool result follow as a
 * user message.
 */
export function toOpenAiMessages(system: string | undefined, messages: readonly LlmMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  let pendingImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: 'user', content: [{ type: 'text', text: 'Images from the tool results above:' }, ...pendingImages] });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'user':
        out.push({ role: 'user', content: typeof message.content === 'string' ? message.content : message.content.map(toOpenAiPart) });
        break;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        out.push({
          role: 'assistant',
          content: message.content || (calls.length > 0 ? null : ''),
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        });
        break;
      }
      case 'tool': {
        const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
        const text = parts
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join('\n');
        out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.isError ? `Error: ${text}` : text });
        pendingImages.push(...parts.filter((part) => part.type === 'image').map(toOpenAiPart));
        break;
      }
    }
  }
  flushImages();
  return out;
}

function toOpenAiPart(part: ContentPart): ChatCompletionContentPart {
  // Documents arrive here as their text already (fitMedia); this only keeps the types honest.
  if (part.type === 'document') return { type: 'text', text: part.text };
  return part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}

export function toOpenAiTools(tools: readonly ToolDeclaration[]): ChatCompletionTool[] {
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}
