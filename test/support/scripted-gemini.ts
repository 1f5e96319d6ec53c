/** A scripted Gemini API server: the generativelanguage REST protocol with SSE streaming. */
import { listen, sendFault, sendJson, streamChunks, type Exchange } from './http.ts';
import { geminiPromptCache } from './prompt-cache.ts';
import { faultQueue, pickTurn, textChunks, turnUsage } from './script.ts';
import type { RecordedRequest, RequestKind, ScriptModel, ScriptOptions, ScriptTurn, ScriptedServer } from './script.ts';

const DEFAULT_GEMINI_MODELS: ScriptModel[] = [
  { name: 'gemini-2.5-flash', contextLength: 1_048_576 },
  { name: 'gemini-2.5-pro', contextLength: 1_048_576 },
];

const GENERATE = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;
const LIST = /^\/(v1|v1beta|v1alpha)\/models$/;
const GET_MODEL = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+)$/;

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function geminiErrorBody(status: number, message: string, details?: unknown[]): unknown {
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN', ...(details ? { details } : {}) } };
}

export async function startScriptedGemini(options: ScriptOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const nextFault = faultQueue(options.faults);
  const models = options.models ?? DEFAULT_GEMINI_MODELS;
  const strictModels = options.models !== undefined;
  const cache = options.promptCache ? geminiPromptCache() : undefined;

  const kindOf = (method: string, path: string): RequestKind => {
    if (GENERATE.test(path)) return 'chat';
    if (LIST.test(path) && method === 'GET') return 'models';
    if (GET_MODEL.test(path) && method === 'GET') return 'show';
    return 'other';
  };

  const handle = async ({ res, record }: Exchange): Promise<void> => {
    const [path, query = ''] = record.path.split('?');
    const key = record.headers['x-goog-api-key'] ?? new URLSearchParams(query).get('key') ?? '';
    if (options.apiKey !== undefined && key !== options.apiKey) {
      return sendJson(
        res,
        400,
        geminiErrorBody(400, 'API key not valid. Please pass a valid API key.', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
        ]),
      );
    }
    if (record.kind === 'models') return sendJson(res, 200, { models: models.map(modelEntry) }); // no nextPageToken: the SDK pager would loop
    if (record.kind === 'show') {
      const name = decodeURIComponent(GET_MODEL.exec(path)?.[2] ?? '');
      const model = models.find((m) => m.name === name);
      return model ? sendJson(res, 200, modelEntry(model)) : sendJson(res, 404, geminiErrorBody(404, `models/${name} is not found`));
    }
    if (record.kind !== 'chat') return sendJson(res, 404, geminiErrorBody(404, `scripted Gemini has no ${record.method} ${path}`));

    const match = GENERATE.exec(path);
    const version = match?.[1] ?? 'v1beta';
    const modelName = decodeURIComponent(match?.[2] ?? '');
    const streaming = match?.[3] === 'streamGenerateContent';
    const fault = nextFault();
    if (fault) {
      record.fault = fault.status;
      return sendFault(res, fault, geminiErrorBody(fault.status, `scripted fault: HTTP ${fault.status}`));
    }
    if (strictModels && !models.some((m) => m.name === modelName)) {
      return sendJson(
        res,
        404,
        geminiErrorBody(
          404,
          `models/${modelName} is not found for API version ${version}, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
        ),
      );
    }
    const body = (record.body ?? {}) as { contents?: { role?: string }[] };
    const n = (body.contents ?? []).filter((c) => c.role === 'model').length;
    if (cache) record.bill = cache.bill(body);
    const turn = pickTurn(options.turns, record, n);
    if (turn.fault) {
      record.fault = turn.fault.status;
      return sendFault(res, turn.fault, geminiErrorBody(turn.fault.status, `scripted fault: HTTP ${turn.fault.status}`));
    }
    record.turn = n;
    const chunks = responseChunks(turn, modelName, turnUsage(turn, record.bytes, record.bill));
    if (!streaming) return sendJson(res, 200, mergeChunks(chunks));
    await streamChunks(
      res,
      chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`),
      { contentType: 'text/event-stream', delayMs: turn.chunkDelayMs, cutAfter: turn.cutAfterChunks },
    );
  };

  const server = await listen({ kindOf, handle }, options.port ?? 0, requests, options.onRequest);
  return { url: server.url, requests, close: server.close };
}

type Part = Record<string, unknown>;
type Chunk = {
  candidates: { content: { role: 'model'; parts: Part[] }; finishReason?: string; index: number }[];
  usageMetadata?: unknown;
  modelVersion: string;
};

/** Text chunks, then one chunk with every function call; the last chunk carries finishReason and usage. */
function responseChunks(turn: ScriptTurn, model: string, usage: { input: number; output: number; cacheRead?: number }): Chunk[] {
  const partsList: Part[][] = textChunks(turn).map((text) => [{ text }]);
  if (turn.toolCalls?.length) {
    partsList.push(
      turn.toolCalls.map((call) => ({
        functionCall: { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.args },
        ...(call.thoughtSignature ? { thoughtSignature: call.thoughtSignature } : {}),
      })),
    );
  }
  if (partsList.length === 0) partsList.push([{ text: '' }]);
  return partsList.map((parts, i) => {
    const last = i === partsList.length - 1;
    return {
      candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
      // promptTokenCount includes the cached tokens, which are also reported on their own.
      ...(last
        ? {
            usageMetadata: {
              promptTokenCount: usage.input + (usage.cacheRead ?? 0),
              candidatesTokenCount: usage.output,
              totalTokenCount: usage.input + (usage.cacheRead ?? 0) + usage.output,
              ...(usage.cacheRead ? { cachedContentTokenCount: usage.cacheRead } : {}),
            },
          }
        : {}),
      modelVersion: model,
    };
  });
}

function mergeChunks(chunks: Chunk[]): Chunk {
  const last = chunks[chunks.length - 1];
  const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
  return { ...last, candidates: [{ ...last.candidates[0], content: { role: 'model', parts } }] };
}

function modelEntry(model: ScriptModel): Record<string, unknown> {
  return {
    name: `models/${model.name}`,
    version: '001',
    displayName: model.name,
    description: `Scripted ${model.name}`,
    inputTokenLimit: model.contextLength ?? 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  };
}
