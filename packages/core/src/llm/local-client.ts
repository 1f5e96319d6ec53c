import type { ChatModelFunctions, Llama, LlamaChat, LlamaContext, LlamaContextSequence, LlamaModel } from 'node-llama-cpp';
import { collectStream } from './collect.js';
import { abortedFailure } from './failures.js';
import { DEFAULT_LOCAL_MODEL } from './local.js';
import { toChatHistory } from './local-history.js';
import { resolveLocalModel } from './local-models.js';
import { checkModelFile, inspectModelFile, llamaFor, loadModel, nodeLlamaCpp, type GpuSetting, type NodeLlamaCpp } from './local-runtime.js';
import { parseStrictReply, partialAnswer, strictReplySchema, toGrammarSchema } from './local-tools.js';
import { newToolCallId } from './tool-call-ids.js';
import type { ChatRequest, LLMClient, ModelInfo, ProviderFailure, ProviderOptions, StreamEvent, ToolCall, Usage } from './types.js';

/** The `local.*` settings. */
export interface LocalSettings {
  gpu?: GpuSetting;
  /** Tool calls through the JSON grammar even when the chat template has its own format. */
  strictTools?: boolean;
  /** `required`: the first reply after a user message must be a tool call (strict mode). */
  toolChoice?: 'auto' | 'required';
  /** Tokens of context; default the model's trained context length (as much of it as fits in memory). */
  contextSize?: number;
  /** CPU threads for evaluation; default the machine's math cores less one. */
  threads?: number;
  /** The longest reply, in tokens, when a request sets no limit (default 4096: llama.cpp would otherwise shift the context and go on). */
  maxTokens?: number;
  /** Sampling seed (tests and benchmarks repeat a run with it). */
  seed?: number;
}

/** A model loaded for this client: its context and the one sequence (KV cache) the session keeps. */
interface Loaded {
  lib: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  chat: LlamaChat;
  /** The GGUF carries a chat template node-llama-cpp knows: tool calls go through it (unless strict). */
  knownTemplate: boolean;
}

const DEFAULT_MAX_TOKENS = 4096;
const EMPTY_USAGE: Usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

export function createLocalClient(options: ProviderOptions = {}): LLMClient {
  const settings = (options.settings ?? {}) as LocalSettings;
  const env = options.env ?? process.env;
  const configured = options.model || undefined;
  let loading: Promise<Loaded | { failure: ProviderFailure }> | undefined;
  /** Requests share one sequence: each waits for the one before it. */
  let queue: Promise<unknown> = Promise.resolve();
  /** The exact text the model generated for a call id or an answer (strict mode), for the next turn's history. */
  const rawReplies = new Map<string, string>();

  function fileOf(model: string | undefined): { file: string } | { failure: ProviderFailure } {
    const ref = resolveLocalModel(model ?? configured, env);
    if ('file' in ref) return ref;
    const wanted = ref.missing;
    if (wanted === DEFAULT_LOCAL_MODEL && !configured) {
      return {
        failure: {
          kind: 'model_not_found',
          message:
            'No local model is downloaded. Run `beans models pull` to fetch the default one (Qwen3 1.7B, about 2 GB) or pass a .gguf file with --model; or use a provider: set GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY, or start Ollama.',
          retryable: false,
        },
      };
    }
    const message = ref.uri
      ? `The model ${wanted} is not downloaded yet. Run \`beans models pull ${wanted}\` first.`
      : `There is no model file at ${wanted}. Pass an existing .gguf file to --model, or pull one with \`beans models pull\`.`;
    return { failure: { kind: 'model_not_found', message, retryable: false } };
  }

  async function load(signal?: AbortSignal): Promise<Loaded | { failure: ProviderFailure }> {
    const target = fileOf(undefined);
    if ('failure' in target) return target;
    const checked = await checkModelFile(target.file);
    if ('failure' in checked) return checked;
    const lib = await nodeLlamaCpp();
    if ('failure' in lib) return lib;
    const llama = await llamaFor(lib, settings.gpu ?? 'auto');
    const inspected = await inspectModelFile(lib, llama, target.file, checked.size);
    if ('failure' in inspected) return inspected;
    const model = await loadModel(lib, llama, target.file, inspected.info, signal);
    if ('failure' in model) return model;
    const context = await model.createContext({
      contextSize: settings.contextSize ?? { max: model.trainContextSize },
      sequences: 1,
      // One math core is left free: ggml's worker threads spin while they wait, so with every core
      // taken a busy machine (or Beans' own tools) slows them by an order of magnitude (seen here).
      threads: settings.threads ?? Math.max(1, llama.cpuMathCores - 1),
    });
    const sequence = context.getSequence();
    const chat = new lib.LlamaChat({ contextSequence: sequence });
    const template = inspected.info.metadata?.tokenizer?.chat_template;
    const generic = ['General', 'Template', 'JinjaTemplate', 'Llama2Chat'].includes(chat.chatWrapper.wrapperName);
    return { lib, llama, model, context, sequence, chat, knownTemplate: typeof template === 'string' && template.length > 0 && !generic };
  }

  function loaded(signal?: AbortSignal): Promise<Loaded | { failure: ProviderFailure }> {
    loading ??= load(signal).then((result) => {
      if ('failure' in result) loading = undefined;
      return result;
    });
    return loading;
  }

  async function* chatStream(request: ChatRequest): AsyncGenerator<StreamEvent, void> {
    const errorEvent = (failure: ProviderFailure, text = ''): StreamEvent => ({
      type: 'error',
      stopReason: failure.kind === 'aborted' ? 'aborted' : 'error',
      failure,
      text,
      toolCalls: [],
      usage: EMPTY_USAGE,
    });
    let release!: () => void;
    const turn = queue.then(() => undefined);
    queue = turn.then(() => new Promise<void>((resolve) => (release = resolve)));
    await turn;
    try {
      const ready = await loaded(request.signal).catch((error: unknown): { failure: ProviderFailure } => ({
        failure: { kind: 'unknown', message: `The local model failed to load: ${String(error)}`, retryable: false },
      }));
      if ('failure' in ready) {
        yield errorEvent(ready.failure);
        return;
      }
      if (request.signal?.aborted) {
        yield errorEvent(abortedFailure());
        return;
      }
      yield* generate(ready, request);
    } finally {
      release();
    }
  }

  async function* generate(ready: Loaded, request: ChatRequest): AsyncGenerator<StreamEvent, void> {
    const tools = request.tools ?? [];
    const strict = tools.length > 0 && (settings.strictTools === true || !ready.knownTemplate);
    const history = toChatHistory(request.system, request.messages, strict ? 'strict' : 'native', tools, rawReplies);
    const lastUser = [...request.messages].reverse().find((m) => m.role !== 'assistant')?.role === 'user';
    const grammar = strict
      ? await ready.llama.createGrammarForJsonSchema(strictReplySchema(tools, settings.toolChoice === 'required' && lastUser) as never)
      : undefined;
    const functions: ChatModelFunctions | undefined =
      !strict && tools.length > 0
        ? Object.fromEntries(tools.map((tool) => [tool.name, { description: tool.description, params: toGrammarSchema(tool.parameters, 0) }]))
        : undefined;

    // Events are produced inside node-llama-cpp's callbacks and drained here as they come.
    const pending: StreamEvent[] = [];
    let wake: (() => void) | undefined;
    const push = (event: StreamEvent) => {
      pending.push(event);
      wake?.();
    };
    const before = { input: ready.sequence.tokenMeter.usedInputTokens, output: ready.sequence.tokenMeter.usedOutputTokens };
    let text = '';
    // Strict replies are JSON: an answer's text streams as its string grows (a call is sent whole).
    let raw = '';
    let streamed = '';
    const common = {
      ...(request.signal ? { signal: request.signal } : {}),
      stopOnAbortSignal: false,
      maxTokens: request.maxOutputTokens ?? settings.maxTokens ?? DEFAULT_MAX_TOKENS,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      onResponseChunk: (chunk: { type: 'segment' | undefined; segmentType?: string; text: string }) => {
        if (chunk.type === 'segment') push({ type: 'reasoning_delta', text: chunk.text });
        else if (strict) {
          raw += chunk.text;
          const answer = partialAnswer(raw);
          if (answer !== undefined && answer.length > streamed.length) {
            push({ type: 'text_delta', text: answer.slice(streamed.length) });
            streamed = answer;
          }
        } else {
          text += chunk.text;
          push({ type: 'text_delta', text: chunk.text });
        }
      },
    };
    const run = (
      grammar
        ? ready.chat.generateResponse(history, { ...common, grammar })
        : ready.chat.generateResponse(history, { ...common, ...(functions ? { functions } : {}) })
    ).then(
      (response) => ({ response }),
      (error: unknown) => ({ error }),
    );
    let outcome: Awaited<typeof run> | undefined;
    void run.then((result) => {
      outcome = result;
      wake?.();
    });
    while (!outcome || pending.length > 0) {
      if (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      while (pending.length > 0) yield pending.shift()!;
    }
    const usage = usageSince(ready, before);
    if ('error' in outcome) {
      const aborted = request.signal?.aborted || (outcome.error instanceof Error && outcome.error.name === 'AbortError');
      const failure: ProviderFailure = aborted
        ? abortedFailure()
        : { kind: 'unknown', message: `The local model failed: ${String(outcome.error)}`, retryable: false };
      yield { type: 'error', stopReason: aborted ? 'aborted' : 'error', failure, text, toolCalls: [], usage };
      return;
    }
    const { response } = outcome;
    const toolCalls: ToolCall[] = [];
    if (strict) {
      const reply = parseStrictReply(response.response);
      if (reply && 'call' in reply) {
        toolCalls.push(reply.call);
        rawReplies.set(reply.call.id, response.response);
      } else if (reply) {
        text = reply.answer;
        rawReplies.set(reply.answer, response.response);
        if (text.startsWith(streamed) && text.length > streamed.length) yield { type: 'text_delta', text: text.slice(streamed.length) };
      } else {
        // Cut off before the JSON closed (the token limit): the answer streamed so far, else the raw reply.
        text = streamed || response.response;
        if (!streamed && text) yield { type: 'text_delta', text };
      }
    } else {
      const calls = (response as { functionCalls?: { functionName: string; params: unknown }[] }).functionCalls ?? [];
      for (const call of calls) {
        const params = call.params;
        toolCalls.push({
          id: newToolCallId(),
          name: call.functionName,
          arguments: params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {},
        });
      }
    }
    for (const call of toolCalls) yield { type: 'tool_call', call };
    const stopReason = toolCalls.length > 0 ? 'tool_use' : response.metadata.stopReason === 'maxTokens' ? 'length' : 'stop';
    yield { type: 'done', stopReason, text, toolCalls, usage };
  }

  return {
    provider: 'local',
    async resolveModel(signal?: AbortSignal) {
      // Loading here (not at the first request) makes a wrong file one sentence before any turn starts.
      const ready = await loaded(signal).catch((error: unknown): { failure: ProviderFailure } => ({
        failure: { kind: 'unknown', message: String(error), retryable: false },
      }));
      if ('failure' in ready) return ready;
      return { model: configured ?? DEFAULT_LOCAL_MODEL };
    },
    chatStream,
    chat: (request) => collectStream(chatStream(request)),
    async listModels(): Promise<ModelInfo[]> {
      const { listLocalModelFiles } = await import('./local-models.js');
      const name = configured ?? DEFAULT_LOCAL_MODEL;
      const ready = loading ? await loading : undefined;
      const active: ModelInfo[] =
        ready && !('failure' in ready) ? [{ name, provider: 'local', contextWindow: ready.context.contextSize, supportsTools: true }] : [];
      const files = listLocalModelFiles(env).filter((entry) => !active.some((model) => model.name === entry.file));
      return [
        ...active,
        ...files.map((entry) => ({ name: entry.name, provider: 'local', supportsTools: true, description: `${(entry.bytes / 1024 ** 2).toFixed(0)} MB` })),
      ];
    },
  };
}

/** Tokens evaluated (input) and generated (output) by this request; the rest of the prompt came from the KV cache. */
function usageSince(ready: Loaded, before: { input: number; output: number }): Usage {
  const inputTokens = ready.sequence.tokenMeter.usedInputTokens - before.input;
  const outputTokens = ready.sequence.tokenMeter.usedOutputTokens - before.output;
  const promptTokens = Math.max(0, ready.sequence.nextTokenIndex - outputTokens);
  const cacheReadTokens = Math.max(0, promptTokens - inputTokens);
  return { inputTokens, outputTokens, ...(cacheReadTokens > 0 ? { cacheReadTokens } : {}), costUsd: 0 };
}
