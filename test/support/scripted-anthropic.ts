/** A scripted Anthropic API server: the Messages API with its named SSE events, and /v1/models. */
import { listen, sendFault, sendJson, streamChunks, type Exchange } from './http.ts';
import { anthropicPromptCache, CacheLimitError } from './prompt-cache.ts';
import { argumentPieces, faultQueue, pickTurn, reasoningChunks, textChunks, turnUsage } from './script.ts';
import type { RecordedRequest, RequestKind, ScriptModel, ScriptOptions, ScriptTurn, ScriptedServer } from './script.ts';

const DEFAULT_ANTHROPIC_MODELS: ScriptModel[] = [{ name: 'claude-sonnet-5-5' }, { name: 'claude-haiku-5-5' }];

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function anthropicErrorBody(status: number, message: string): unknown {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } };
}

export async function startScriptedAnthropic(options: ScriptOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const nextFault = faultQueue(options.faults);
  const models = options.models ?? DEFAULT_ANTHROPIC_MODELS;
  const strictModels = options.models !== undefined;
  const cache = options.promptCache ? anthropicPromptCache() : undefined;

  const kindOf = (method: string, path: string): RequestKind => {
    if (path === '/v1/messages' && method === 'POST') return 'chat';
    if (path === '/v1/models' && method === 'GET') return 'models';
    return 'other';
  };

  const handle = async ({ res, record }: Exchange): Promise<void> => {
    const path = record.path.split('?')[0];
    // @anthropic-ai/sdk 1.x sends the key as `Authorization: Bearer`; older clients as `x-api-key`.
    const key = record.headers['x-api-key'] ?? (record.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    if (options.apiKey !== undefined && key !== options.apiKey) {
      return sendJson(res, 401, anthropicErrorBody(401, 'invalid x-api-key'));
    }
    if (record.kind === 'models') {
      const data = models.map((m) => ({ type: 'model', id: m.name, display_name: m.name, created_at: '2026-01-01T00:00:00Z' }));
      return sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    }
    if (record.kind !== 'chat') return sendJson(res, 404, anthropicErrorBody(404, `scripted Anthropic has no ${record.method} ${path}`));

    const fault = nextFault();
    if (fault) {
      record.fault = fault.status;
      return sendFault(res, fault, anthropicErrorBody(fault.status, `scripted fault: HTTP ${fault.status}`));
    }
    const body = (record.body ?? {}) as Record<string, unknown>;
    const model = String(body.model ?? '');
    if (strictModels && !models.some((m) => m.name === model)) return sendJson(res, 404, anthropicErrorBody(404, `model: ${model}`));
    const messages = Array.isArray(body.messages) ? (body.messages as { role?: string }[]) : [];
    const n = messages.filter((m) => m.role === 'assistant').length;
    if (cache) {
      try {
        record.bill = cache.bill(body);
      } catch (error) {
        if (error instanceof CacheLimitError) return sendJson(res, 400, anthropicErrorBody(400, error.message));
        throw error;
      }
    }
    const turn = pickTurn(options.turns, record, n);
    if (turn.fault) {
      record.fault = turn.fault.status;
      return sendFault(res, turn.fault, anthropicErrorBody(turn.fault.status, `scripted fault: HTTP ${turn.fault.status}`));
    }
    record.turn = n;
    const events = messageEvents(`msg_${n}`, model, n, turn, turnUsage(turn, record.bytes, record.bill));
    await streamChunks(
      res,
      events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
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

type Event = { type: string } & Record<string, unknown>;

function messageEvents(id: string, model: string, n: number, turn: ScriptTurn, usage: ReturnType<typeof turnUsage>): Event[] {
  const events: Event[] = [
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          output_tokens: 1,
          cache_read_input_tokens: usage.cacheRead ?? 0,
          cache_creation_input_tokens: usage.cacheWrite ?? 0,
        },
      },
    },
  ];
  let index = 0;
  const thinking = reasoningChunks(turn);
  if (thinking.length > 0) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const text of thinking) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: text } });
    events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: `sig-${n}` } });
    events.push({ type: 'content_block_stop', index });
    index++;
  }
  const text = textChunks(turn);
  if (text.length > 0) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of text) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    events.push({ type: 'content_block_stop', index });
    index++;
  }
  (turn.toolCalls ?? []).forEach((call, i) => {
    events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${n}_${i}`, name: call.name, input: {} } });
    for (const piece of argumentPieces(call.args))
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    events.push({ type: 'content_block_stop', index });
    index++;
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: turn.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  events.push({ type: 'message_stop' });
  return events;
}
