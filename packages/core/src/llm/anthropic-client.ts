import { anthropicThinking } from './thinking.js';
import { BaseAnthropic } from '@anthropic-ai/sdk';
import {
  Messages,
  type ContentBlockParam,
  type DocumentBlockParam,
  type ImageBlockParam,
  type MessageCreateParamsStreaming,
  type MessageParam,
  type RawMessageStreamEvent,
  type TextBlockParam,
  type Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { Models } from '@anthropic-ai/sdk/resources/models';
import { anthropicProvider } from './anthropic.js';
import { withConversationBreakpoints } from './anthropic-cache.js';
import { collectStream } from './collect.js';
import { failureToError, type FailureContext } from './failures.js';
import { providerFetch } from './provider-fetch.js';
import { costUsd } from './pricing.js';
import { apiKeyFrom, longestPrefix, missingKeyFailure } from './provider-info.js';
import { retryPolicy, streamWithRetry, withRetry, type AttemptChunk, type AttemptResult } from './retry.js';
import type {
  ChatRequest,
  ContentPart,
  LLMClient,
  LlmMessage,
  ModelInfo,
  ProviderMetadata,
  ProviderOptions,
  Reasoning,
  StreamEvent,
  ToolCall,
  ToolDeclaration,
  Usage,
} from './types.js';
import { fitMedia, type MediaLimits } from './image-fit.js';

// Anthropic scales a picture's long side over 1,568 px down itself, and refuses one over 5 MB once
// base64-encoded (3.75 MB of file): sending more pixels only costs upload time.
// PDFs: 100 pages and 32 MB a request (base64 included) for documents.
export const MEDIA_LIMITS: MediaLimits = {
  image: { maxLongSide: 1568, maxBytes: 3.75 * 1024 * 1024 },
  document: { maxPages: 100, maxBytes: 24 * 1024 * 1024 },
};

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

// The SDK's client with the two resources Beans calls. The full `Anthropic` class builds every
// resource (beta, files, skills, organizations...): ~1 MB that costs ~5 ms of every start.
class AnthropicClient extends BaseAnthropic {
  messages = new Messages(this);
  models = new Models(this);
}
const EPHEMERAL = { type: 'ephemeral' } as const;

export function createAnthropicClient(options: ProviderOptions = {}): LLMClient {
  const definition = anthropicProvider;
  const env = options.env ?? process.env;
  const apiKey = options.apiKey?.trim() || apiKeyFrom(definition, env);
  const baseURL = options.baseUrl || env.ANTHROPIC_BASE_URL?.trim() || DEFAULT_BASE_URL;
  const defaultModel = options.model || definition.defaultModel!;
  const policy = retryPolicy(options.retry);
  const context: FailureContext = { provider: 'anthropic', host: baseURL, hints: definition.hints };
  // maxRetries 0: Beans' retry policy handles 429 and 529 (overloaded) alike.
  // providerFetch: node:http instead of Node's fetch, and no undici at all (provider-fetch.ts).
  const client = apiKey ? new AnthropicClient({ apiKey, baseURL, maxRetries: 0, timeout: 10 * 60_000, fetch: providerFetch, openTelemetry: false }) : undefined;

  async function* chatStream(request: ChatRequest): AsyncGenerator<StreamEvent, void> {
    const model = request.model || defaultModel;
    if (!client) {
      yield { type: 'error', stopReason: 'error', failure: missingKeyFailure(definition), text: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
      return;
    }
    const hasTools = request.tools !== undefined && request.tools.length > 0;
    const body: MessageCreateParamsStreaming = {
      model,
      ...anthropicThinking(request.thinking, request.maxOutputTokens ?? definition.maxOutputTokens!(model)),
      // Prompt caching: breakpoints after the tools, after the system prompt (the same every turn),
      // and two in the conversation (anthropic-cache.ts), four in all.
      messages: withConversationBreakpoints(toAnthropicMessages(await fitMedia(request.messages, MEDIA_LIMITS)), (hasTools ? 1 : 0) + (request.system ? 1 : 0)),
      stream: true,
      ...(request.system ? { system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }] } : {}),
      ...(hasTools ? { tools: toAnthropicTools(request.tools!) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    yield* streamWithRetry({
      policy: request.maxAttempts ? { ...policy, maxAttempts: Math.min(policy.maxAttempts, request.maxAttempts) } : policy,
      signal: request.signal,
      context: { ...context, model },
      costUsd: (usage) => costUsd('anthropic', model, usage),
      attempt: (signal) => streamOnce(client, body, signal),
    });
  }

  return {
    provider: 'anthropic',
    async resolveModel() {
      return client ? { model: defaultModel } : { failure: missingKeyFailure(definition) };
    },
    chatStream,
    chat: (request) => collectStream(chatStream(request)),
    async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
      if (!client) throw failureToError(missingKeyFailure(definition));
      const result = await withRetry(
        async (attemptSignal) => {
          const models: ModelInfo[] = [];
          for await (const model of client.models.list({ limit: 100 }, attemptSignal ? { signal: attemptSignal } : {})) {
            const window = longestPrefix(definition.contextWindows ?? [], model.id);
            models.push({
              name: model.id,
              provider: 'anthropic',
              ...(window ? { contextWindow: window } : {}),
              ...(model.display_name ? { description: model.display_name } : {}),
            });
          }
          return models;
        },
        { policy, signal, context },
      );
      if ('failure' in result) throw failureToError(result.failure);
      return result.value;
    },
  };
}

type Block =
  | { type: 'text' }
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'thinking'; text: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

async function* streamOnce(
  client: AnthropicClient,
  body: MessageCreateParamsStreaming,
  signal: AbortSignal | undefined,
): AsyncGenerator<AttemptChunk, AttemptResult> {
  const stream = await client.messages.create(body, signal ? { signal } : {});
  const blocks = new Map<number, Block>();
  const reasoning: Reasoning[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let stopReason: string | null | undefined;
  let stopped = false;
  let responseModel: string | undefined;
  for await (const event of stream as AsyncIterable<RawMessageStreamEvent>) {
    switch (event.type) {
      case 'message_start': {
        responseModel = event.message.model || undefined;
        const u = event.message.usage;
        usage = {
          inputTokens: u.input_tokens ?? 0,
          outputTokens: u.output_tokens ?? 0,
          ...(u.cache_read_input_tokens ? { cacheReadTokens: u.cache_read_input_tokens } : {}),
          ...(u.cache_creation_input_tokens ? { cacheWriteTokens: u.cache_creation_input_tokens } : {}),
        };
        // The prompt is billed from here on, even if the stream is then cut or aborted.
        yield { type: 'usage', usage };
        break;
      }
      case 'content_block_start': {
        const start = event.content_block;
        if (start.type === 'tool_use') blocks.set(event.index, { type: 'tool_use', id: start.id, name: start.name, json: '' });
        else if (start.type === 'thinking') blocks.set(event.index, { type: 'thinking', text: start.thinking ?? '', signature: start.signature ?? '' });
        else if (start.type === 'redacted_thinking') blocks.set(event.index, { type: 'redacted_thinking', data: start.data });
        else if (start.type === 'text') {
          blocks.set(event.index, { type: 'text' });
          if (start.text) yield { type: 'text_delta', text: start.text };
        }
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === 'text_delta') yield { type: 'text_delta', text: delta.text };
        else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') block.json += delta.partial_json;
        else if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
          block.text += delta.thinking;
          yield { type: 'reasoning_delta', text: delta.thinking };
        } else if (delta.type === 'signature_delta' && block?.type === 'thinking') block.signature += delta.signature;
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(event.index);
        if (block?.type === 'tool_use') yield { type: 'tool_call', call: toToolCall(block) };
        else if (block?.type === 'thinking') reasoning.push({ text: block.text, metadata: { anthropic: { signature: block.signature } } });
        else if (block?.type === 'redacted_thinking') reasoning.push({ text: '', metadata: { anthropic: { redactedData: block.data } } });
        break;
      }
      case 'message_delta': {
        stopReason = event.delta.stop_reason;
        const u = event.usage;
        usage = {
          ...usage,
          outputTokens: u.output_tokens ?? usage.outputTokens,
          ...(u.input_tokens ? { inputTokens: u.input_tokens } : {}),
          ...(u.cache_read_input_tokens ? { cacheReadTokens: u.cache_read_input_tokens } : {}),
          ...(u.cache_creation_input_tokens ? { cacheWriteTokens: u.cache_creation_input_tokens } : {}),
        };
        break;
      }
      case 'message_stop':
        stopped = true;
        break;
    }
  }
  // The SDK ends quietly when the body is cut: without message_stop the answer is incomplete.
  if (!stopped) throw new Error('premature close');
  if (stopReason === 'refusal') {
    return { failure: { kind: 'bad_request', message: 'Claude declined to answer (refusal). Rephrase the request and try again.', retryable: false }, usage };
  }
  return {
    stopReason: stopReason === 'max_tokens' ? 'length' : 'stop',
    usage,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    ...(responseModel ? { responseModel } : {}),
  };
}

function toToolCall(block: Extract<Block, { type: 'tool_use' }>): ToolCall {
  let args: Record<string, unknown> = {};
  if (block.json.trim()) {
    try {
      const value: unknown = JSON.parse(block.json);
      args = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { _raw: block.json };
    } catch {
      args = { _raw: block.json };
    }
  }
  return { id: block.id, name: block.name, arguments: args };
}

/**
 * LLM messages to Anthropic messages: tool results become `tool_result` blocks of a user message,
 * neighbours of the same role merge (the API wants them alternating), and thinking blocks with
 * their signature go back first in their assistant message, as the API requires with tool use.
 */
export function toAnthropicMessages(messages: readonly LlmMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        push(
          'user',
          typeof message.content === 'string' ? (message.content ? [{ type: 'text', text: message.content }] : []) : message.content.map(toAnthropicPart),
        );
        break;
      case 'assistant': {
        const blocks: ContentBlockParam[] = [];
        for (const thought of message.reasoning ?? []) {
          const own = thought.metadata?.anthropic;
          if (typeof own?.signature === 'string' && own.signature) blocks.push({ type: 'thinking', thinking: thought.text, signature: own.signature });
          else if (typeof own?.redactedData === 'string') blocks.push({ type: 'redacted_thinking', data: own.redactedData });
        }
        if (message.content) blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
        push('assistant', blocks);
        break;
      }
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: message.toolCallId,
            content: withReferences(
              toolReferences(message.metadata),
              typeof message.content === 'string' ? message.content : message.content.map(toAnthropicPart),
            ),
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  return out;
}

function toAnthropicPart(part: ContentPart): TextBlockParam | ImageBlockParam | DocumentBlockParam {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'document') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data }, title: part.name };
  return { type: 'image', source: { type: 'base64', media_type: part.mimeType as 'image/png', data: part.data } };
}

/**
 * The last declaration carries the cache breakpoint: everything up to it is cached. Loaded deferred
 * tools come last with `defer_loading` (they are not part of the cached tool prefix), so the
 * breakpoint stays on the last tool declared the ordinary way.
 */
export function toAnthropicTools(tools: readonly ToolDeclaration[]): Tool[] {
  const marked = tools.findLastIndex((tool) => !tool.deferLoading);
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as Tool['input_schema'],
    ...(tool.deferLoading ? { defer_loading: true } : {}),
    ...(index === marked ? { cache_control: EPHEMERAL } : {}),
  }));
}

/** A tool_search result's `tool_reference` blocks (Anthropic's deferred loading), before its text. */
function toolReferences(metadata: ProviderMetadata | undefined): ContentBlockParam[] {
  const names = metadata?.anthropic?.toolReferences;
  if (!Array.isArray(names)) return [];
  return names
    .filter((name): name is string => typeof name === 'string')
    .map((name) => ({ type: 'tool_reference', tool_name: name }) as unknown as ContentBlockParam);
}

type ToolResultContent = string | (TextBlockParam | ImageBlockParam | DocumentBlockParam)[];

function withReferences(references: ContentBlockParam[], content: ToolResultContent): ToolResultContent {
  if (references.length === 0) return content;
  const rest = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  return [...references, ...rest] as unknown as ToolResultContent;
}
