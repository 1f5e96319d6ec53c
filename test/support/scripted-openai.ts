/** A scripted OpenAI-compatible server: Chat Completions with SSE streaming, and /v1/models. */
import { listen, sendFault, sendJson, streamChunks, type Exchange } from './http.ts';
import { openAiPromptCache } from './prompt-cache.ts';
import { argumentPieces, faultQueue, pickTurn, reasoningChunks, textChunks, turnUsage } from './script.ts';
import type { RecordedRequest, RequestKind, ScriptModel, ScriptOptions, ScriptTurn, ScriptedServer } from './script.ts';

const DEFAULT_OPENAI_MODELS: ScriptModel[] = [{ name: 'gpt-5-mini' }, { name: 'gpt-5' }];

const CREATED = 1_767_225_600; // 2026-01-01

export function openAiErrorBody(status: number, message: string, code: string | null = null): unknown {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code } };
}

export async function startScriptedOpenAi(options: ScriptOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const nextFault = faultQueue(options.faults);
  const models = options.models ?? DEFAULT_OPENAI_MODELS;
  const strictModels = options.models !== undefined;
  const cache = options.promptCache ? openAiPromptCache() : undefined;

  const kindOf = (method: string, path: string): RequestKind => {
    if (path === '/v1/chat/completions' && method === 'POST') return 'chat';
    if (path === '/v1/models' && method === 'GET') return 'models';
    return 'other';
  };

  const handle = async ({ res, record }: Exchange): Promise<void> => {
    const path = record.path.split('?')[0];
    const key = (record.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    if (options.apiKey !== undefined && key !== options.apiKey) {
      return sendJson(
        res,
        401,
        openAiErrorBody(401, 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_api_key'),
      );
    }
    if (record.kind === 'models') {
      return sendJson(res, 200, { object: 'list', data: models.map((m) => ({ id: m.name, object: 'model', created: CREATED, owned_by: 'scripted' })) });
    }
    if (record.kind !== 'chat') return sendJson(res, 404, openAiErrorBody(404, `scripted OpenAI has no ${record.method} ${path}`));

    const fault = nextFault();
    if (fault) {
      record.fault = fault.status;
      return sendFault(res, fault, openAiErrorBody(fault.status, `scripted fault: HTTP ${fault.status}`));
    }
    const body = (record.body ?? {}) as Record<string, unknown>;
    const model = String(body.model ?? '');
    if (strictModels && !models.some((m) => m.name === model)) {
      return sendJson(res, 404, openAiErrorBody(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'model_not_found'));
    }
    const messages = Array.isArray(body.messages) ? (body.messages as { role?: string }[]) : [];
    const n = messages.filter((m) => m.role === 'assistant').length;
    if (cache) record.bill = cache.bill(body);
    const turn = pickTurn(options.turns, record, n);
    if (turn.fault) {
      record.fault = turn.fault.status;
      return sendFault(res, turn.fault, openAiErrorBody(turn.fault.status, `scripted fault: HTTP ${turn.fault.status}`));
    }
    record.turn = n;
    const usage = turnUsage(turn, record.bytes, record.bill);
    const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const chunks = completionChunks(`chatcmpl-${n}`, model, turn, usage, withUsage);
    await streamChunks(
      res,
      chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`),
      {
        contentType: 'text/event-stream',
        delayMs: turn.chunkDelayMs,
        cutAfter: turn.cutAfterChunks,
      },
    );
  };

  const server = await listen({ kindOf, handle }, options.port ?? 0, requests, options.onRequest);
  return { url: server.url, requests, close: server.close };
}

/** One streamed answer: reasoning, text, tool-call pieces by index, the finish chunk, the usage chunk, [DONE]. */
function completionChunks(id: string, model: string, turn: ScriptTurn, usage: ReturnType<typeof turnUsage>, withUsage: boolean): (object | string)[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const out: (object | string)[] = [chunk({ role: 'assistant', content: '' })];
  for (const text of reasoningChunks(turn)) out.push(chunk({ reasoning_content: text }));
  for (const text of textChunks(turn)) out.push(chunk({ content: text }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    const [first = '', ...rest] = argumentPieces(call.args);
    out.push(chunk({ tool_calls: [{ index, id: call.id ?? `call_${index}_${id}`, type: 'function', function: { name: call.name, arguments: first } }] }));
    for (const piece of rest) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, turn.toolCalls?.length ? 'tool_calls' : 'stop'));
  if (withUsage) {
    const cached = usage.cacheRead ?? 0;
    out.push({
      id,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [],
      usage: {
        prompt_tokens: usage.input + cached,
        completion_tokens: usage.output,
        total_tokens: usage.input + cached + usage.output,
        prompt_tokens_details: { cached_tokens: cached },
      },
    });
  }
  out.push('[DONE]');
  return out;
}
