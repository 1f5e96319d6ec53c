/** A scripted Ollama server speaking the real /api wire protocol (NDJSON streaming). */
import { listen, sendFault, sendJson, streamChunks, type Exchange } from './http.ts';
import { faultQueue, pickTurn, textChunks, turnUsage } from './script.ts';
import type { RecordedRequest, RequestKind, ScriptModel, ScriptOptions, ScriptTurn, ScriptedServer } from './script.ts';

const DEFAULT_OLLAMA_MODELS: ScriptModel[] = [
  { name: 'scripted:latest', capabilities: ['completion', 'tools'], contextLength: 32768, family: 'qwen3', parameterSize: '8B' },
];

const CREATED_AT = '2026-01-01T00:00:00Z';

export async function startScriptedOllama(options: ScriptOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const nextFault = faultQueue(options.faults);
  const models = options.models ?? DEFAULT_OLLAMA_MODELS;
  const strictModels = options.models !== undefined;

  const kindOf = (method: string, path: string): RequestKind => {
    if (path === '/api/chat') return 'chat';
    if (path === '/api/tags') return 'models';
    if (path === '/api/show') return 'show';
    if (path === '/api/version') return 'version';
    return 'other';
  };

  const handle = async ({ res, record }: Exchange): Promise<void> => {
    const path = record.path.split('?')[0];
    const body = (record.body ?? {}) as Record<string, unknown>;
    if (record.kind === 'version') return sendJson(res, 200, { version: '0.12.0' });
    if (record.kind === 'models') return sendJson(res, 200, { models: models.map(tagEntry) });
    if (record.kind === 'show') {
      const name = String(body.model ?? body.name ?? '');
      const model = findModel(models, name);
      if (!model) return sendJson(res, 404, { error: `model '${name}' not found` });
      return sendJson(res, 200, showEntry(model));
    }
    if (record.kind !== 'chat') return sendJson(res, 404, { error: `scripted Ollama has no ${record.method} ${path}` });

    const fault = nextFault();
    if (fault) {
      record.fault = fault.status;
      return sendFault(res, fault, { error: `scripted fault: HTTP ${fault.status}` });
    }
    const modelName = String(body.model ?? '');
    if (strictModels && !findModel(models, modelName)) {
      return sendJson(res, 404, { error: `model "${modelName}" not found, try pulling it first` });
    }
    const messages = Array.isArray(body.messages) ? (body.messages as { role?: string }[]) : [];
    const n = messages.filter((m) => m.role === 'assistant').length;
    const turn = pickTurn(options.turns, record, n);
    if (turn.fault) {
      record.fault = turn.fault.status;
      return sendFault(res, turn.fault, { error: `scripted fault: HTTP ${turn.fault.status}` });
    }
    record.turn = n;
    const usage = turnUsage(turn, record.bytes);

    if (body.stream === false) {
      return sendJson(res, 200, {
        ...line(modelName, { role: 'assistant', content: textChunks(turn).join(''), ...toolCallsField(turn) }, true),
        done_reason: 'stop',
        prompt_eval_count: usage.input,
        eval_count: usage.output,
      });
    }
    const lines = textChunks(turn).map((text) => line(modelName, { role: 'assistant', content: text }, false));
    if (turn.toolCalls?.length) lines.push(line(modelName, { role: 'assistant', content: '', ...toolCallsField(turn) }, false));
    lines.push({ ...line(modelName, { role: 'assistant', content: '' }, true), done_reason: 'stop', prompt_eval_count: usage.input, eval_count: usage.output });
    await streamChunks(
      res,
      lines.map((l) => `${JSON.stringify(l)}\n`),
      { contentType: 'application/x-ndjson', delayMs: turn.chunkDelayMs, cutAfter: turn.cutAfterChunks },
    );
  };

  const server = await listen({ kindOf, handle }, options.port ?? 0, requests, options.onRequest);
  return { url: server.url, requests, close: server.close };
}

function line(model: string, message: Record<string, unknown>, done: boolean): Record<string, unknown> {
  return { model, created_at: CREATED_AT, message, done };
}

function toolCallsField(turn: ScriptTurn): { tool_calls?: unknown[] } {
  if (!turn.toolCalls?.length) return {};
  return {
    tool_calls: turn.toolCalls.map((call, index) => ({ ...(call.id ? { id: call.id } : {}), function: { index, name: call.name, arguments: call.args } })),
  };
}

/** Ollama resolves `name` to `name:latest`. */
function findModel(models: ScriptModel[], name: string): ScriptModel | undefined {
  return models.find((m) => m.name === name || m.name === `${name}:latest`);
}

function details(model: ScriptModel): Record<string, unknown> {
  const family = model.family ?? 'llama';
  return { parent_model: '', format: 'gguf', family, families: [family], parameter_size: model.parameterSize ?? '7B', quantization_level: 'Q4_K_M' };
}

function tagEntry(model: ScriptModel): Record<string, unknown> {
  return { name: model.name, model: model.name, modified_at: CREATED_AT, size: 4_000_000_000, digest: 'sha256:0000', details: details(model) };
}

function showEntry(model: ScriptModel): Record<string, unknown> {
  const family = model.family ?? 'llama';
  return {
    license: '',
    modelfile: `FROM ${model.name}`,
    parameters: '',
    template: '{{ .Prompt }}',
    details: details(model),
    model_info: { 'general.architecture': family, [`${family}.context_length`]: model.contextLength ?? 8192 },
    capabilities: model.capabilities ?? ['completion'],
    modified_at: CREATED_AT,
  };
}
