import { geminiThinkingConfig } from './thinking.js';
import { GoogleGenAI, type Content, type FunctionDeclaration, type GenerateContentConfig, type Part, type Tool } from '@google/genai/web';
import { collectStream } from './collect.js';
import { failureToError, missingGeminiKeyFailure, type FailureContext } from './failures.js';
import type { FetchFunction } from './http-fetch.js';
import { providerFetch } from './provider-fetch.js';
import { DEFAULT_GEMINI_BASE_URL, DEFAULT_GEMINI_MODEL, geminiApiKey, geminiProvider } from './gemini.js';
import { costUsd } from './pricing.js';
import { parseRetryAfter, retryPolicy, streamWithRetry, withRetry, type AttemptChunk, type AttemptResult } from './retry.js';
import { isGeneratedToolCallId, newToolCallId } from './tool-call-ids.js';
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
  Usage,
} from './types.js';
import { fitMedia, type MediaLimits } from './image-fit.js';

// Gemini takes up to 20 MB of inline data per request (base64 included) and tiles large pictures;
// 3,072 px is the size it documents for one picture.
// PDFs: up to 1,000 pages; 20 MB of inline data a request.
export const MEDIA_LIMITS: MediaLimits = { image: { maxLongSide: 3072, maxBytes: 7 * 1024 * 1024 }, document: { maxPages: 1000, maxBytes: 14 * 1024 * 1024 } };

// Finish reasons that mean "no answer, and asking again the same way will not help".
const REFUSALS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'LANGUAGE',
  'IMAGE_SAFETY',
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
]);

// Gemini 3 rejects a history whose function calls lack a thought signature (calls made by another
// model or provider); this documented placeholder tells it to skip that check.
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

export function createGeminiClient(options: ProviderOptions = {}): LLMClient {
  const env = options.env ?? process.env;
  const apiKey = options.apiKey?.trim() || geminiApiKey(env);
  const baseUrl = options.baseUrl || env.GOOGLE_GEMINI_BASE_URL || undefined;
  const host = baseUrl ?? DEFAULT_GEMINI_BASE_URL;
  const defaultModel = options.model || DEFAULT_GEMINI_MODEL;
  const policy = retryPolicy(options.retry);
  // vertexai: false so a stray GOOGLE_GENAI_USE_VERTEXAI does not send the key to Vertex.
  const ai = apiKey ? new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { fetch: providerFetch, ...(baseUrl ? { baseUrl } : {}) } }) : undefined;

  async function* chatStream(request: ChatRequest): AsyncGenerator<StreamEvent, void> {
    const model = request.model || defaultModel;
    if (!ai) {
      yield { type: 'error', stopReason: 'error', failure: missingGeminiKeyFailure(), text: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
      return;
    }
    const contents = toGeminiContents(await fitMedia(request.messages, MEDIA_LIMITS), model);
    const watcher = retryAfterWatcher();
    const baseConfig: GenerateContentConfig = {
      httpOptions: { fetch: watcher.fetch },
      ...(request.system ? { systemInstruction: request.system } : {}),
      ...(request.tools && request.tools.length > 0 ? { tools: toGeminiTools(request.tools) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
      ...geminiThinkingConfig(request.thinking),
    };
    yield* streamWithRetry({
      policy: request.maxAttempts ? { ...policy, maxAttempts: Math.min(policy.maxAttempts, request.maxAttempts) } : policy,
      signal: request.signal,
      context: { provider: 'gemini', host, model, hints: geminiProvider.hints },
      retryAfterMs: watcher.retryAfterMs,
      costUsd: (usage) => costUsd('gemini', model, usage),
      attempt: (signal) => streamOnce(ai, model, contents, { ...baseConfig, ...(signal ? { abortSignal: signal } : {}) }),
    });
  }

  return {
    provider: 'gemini',
    async resolveModel() {
      return ai ? { model: defaultModel } : { failure: missingGeminiKeyFailure() };
    },
    chatStream,
    chat: (request) => collectStream(chatStream(request)),
    async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
      if (!ai) throw failureToError(missingGeminiKeyFailure());
      const context: FailureContext = { provider: 'gemini', host, hints: geminiProvider.hints };
      const watcher = retryAfterWatcher();
      const result = await withRetry(
        async (attemptSignal) => {
          const pager = await ai.models.list({
            config: { pageSize: 100, httpOptions: { fetch: watcher.fetch }, ...(attemptSignal ? { abortSignal: attemptSignal } : {}) },
          });
          const models: ModelInfo[] = [];
          for await (const model of pager) {
            if (model.supportedActions && !model.supportedActions.includes('generateContent')) continue;
            const name = (model.name ?? '').replace(/^models\//, '');
            if (!name) continue;
            models.push({
              name,
              provider: 'gemini',
              ...(model.inputTokenLimit ? { contextWindow: model.inputTokenLimit } : {}),
              ...(model.displayName || model.description ? { description: model.displayName ?? model.description } : {}),
            });
          }
          return models;
        },
        { policy, signal, context, retryAfterMs: watcher.retryAfterMs },
      );
      if ('failure' in result) throw failureToError(result.failure);
      return result.value;
    },
  };
}

async function* streamOnce(ai: GoogleGenAI, model: string, contents: Content[], config: GenerateContentConfig): AsyncGenerator<AttemptChunk, AttemptResult> {
  const stream = await ai.models.generateContentStream({ model, contents, config });
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let finishReason: string | undefined;
  let blockReason: string | undefined;
  let produced = false;
  let responseModel: string | undefined;
  for await (const chunk of stream) {
    if (chunk.modelVersion) responseModel = chunk.modelVersion;
    if (chunk.usageMetadata) {
      const u = chunk.usageMetadata;
      // promptTokenCount includes what implicit caching served (cachedContentTokenCount), billed at its discount.
      const cached = u.cachedContentTokenCount ?? 0;
      usage = {
        inputTokens: Math.max(0, (u.promptTokenCount ?? 0) - cached),
        outputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
        ...(cached ? { cacheReadTokens: cached } : {}),
      };
    }
    if (chunk.promptFeedback?.blockReason) blockReason = String(chunk.promptFeedback.blockReason);
    const candidate = chunk.candidates?.[0];
    if (candidate?.finishReason) finishReason = String(candidate.finishReason);
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thought) continue; // thought summaries are not part of the answer
      if (part.functionCall) {
        produced = true;
        yield { type: 'tool_call', call: toToolCall(part) };
      } else if (part.text) {
        produced = true;
        yield { type: 'text_delta', text: part.text };
      }
    }
  }
  if (!produced && (blockReason || (finishReason && REFUSALS.has(finishReason)))) {
    return { failure: refusalFailure(blockReason ?? finishReason ?? 'unknown'), usage };
  }
  return { stopReason: finishReason === 'MAX_TOKENS' ? 'length' : 'stop', usage, ...(responseModel ? { responseModel } : {}) };
}

function toToolCall(part: Part): ToolCall {
  const call = part.functionCall ?? {};
  return {
    id: call.id || newToolCallId(),
    name: call.name ?? '',
    arguments: call.args ?? {},
    ...(part.thoughtSignature ? { metadata: { gemini: { thoughtSignature: part.thoughtSignature } } } : {}),
  };
}

function refusalFailure(reason: string): ProviderFailure {
  const message =
    reason === 'MALFORMED_FUNCTION_CALL' || reason === 'UNEXPECTED_TOOL_CALL'
      ? `Gemini produced a tool call it could not complete (${reason}). Try again, or rephrase the request.`
      : `Gemini declined to answer (${reason}). Rephrase the request and try again.`;
  return { kind: 'bad_request', message, retryable: false };
}

/**
 * LLM messages to Gemini contents: assistant turns become `model`, tool results become
 * functionResponse parts of a `user` turn, and neighbours of the same role are merged, since
 * Gemini expects the roles to alternate.
 */
export function toGeminiContents(messages: readonly LlmMessage[], model = ''): Content[] {
  const contents: Content[] = [];
  const needsSignature = /^(models\/)?gemini-3/.test(model);
  const push = (role: 'user' | 'model', parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role && last.parts) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        push('user', typeof message.content === 'string' ? (message.content ? [{ text: message.content }] : []) : message.content.map(toGeminiPart));
        break;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        const parts: Part[] = message.content ? [{ text: message.content }] : [];
        calls.forEach((call, index) => {
          const signature = thoughtSignature(call) ?? (needsSignature && index === 0 ? SKIP_SIGNATURE : undefined);
          parts.push({
            functionCall: { ...(isGeneratedToolCallId(call.id) ? {} : { id: call.id }), name: call.name, args: call.arguments },
            ...(signature ? { thoughtSignature: signature } : {}),
          });
        });
        push('model', parts);
        break;
      }
      case 'tool': {
        const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
        const text = parts
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join('\n');
        push('user', [
          {
            functionResponse: {
              ...(isGeneratedToolCallId(message.toolCallId) ? {} : { id: message.toolCallId }),
              name: message.toolName,
              response: message.isError ? { error: text } : { output: text },
            },
          },
          // Images and documents of a tool result follow its response as inline data.
          ...parts.filter((part) => part.type !== 'text').map(toGeminiPart),
        ]);
        break;
      }
    }
  }
  return contents;
}

function toGeminiPart(part: ContentPart): Part {
  return part.type === 'text' ? { text: part.text } : { inlineData: { mimeType: part.mimeType, data: part.data } };
}

/** Where the signature lives now, or `signature` in session files written before provider metadata. */
function thoughtSignature(call: ToolCall): string | undefined {
  const current = call.metadata?.gemini?.thoughtSignature;
  if (typeof current === 'string') return current;
  const legacy = (call as { signature?: unknown }).signature;
  return typeof legacy === 'string' ? legacy : undefined;
}

export function toGeminiTools(tools: readonly ToolDeclaration[]): Tool[] {
  const functionDeclarations: FunctionDeclaration[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: tool.parameters,
  }));
  return [{ functionDeclarations }];
}

/** A fetch (node:http, provider-fetch.ts) that remembers the Retry-After of the last failed response (gateways send it; ApiError drops headers). */
function retryAfterWatcher(): { fetch: FetchFunction; retryAfterMs: () => number | undefined } {
  let last: number | undefined;
  return {
    fetch: async (input, init) => {
      const response = await providerFetch(input, init);
      if (!response.ok) last = parseRetryAfter(response.headers.get('retry-after'));
      return response;
    },
    retryAfterMs: () => last,
  };
}
