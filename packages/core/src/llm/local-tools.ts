import type { GbnfJsonSchema } from 'node-llama-cpp';
import { newToolCallId } from './tool-call-ids.js';
import type { JsonSchema, ToolCall, ToolDeclaration } from './types.js';

/**
 * Strict tool calls for local models: the reply is one JSON object, `{"tool": <name>, "arguments":
 * {...}}` or `{"answer": "..."}`, and llama.cpp samples only tokens a grammar built from the declared
 * tools' schemas allows. So even a model that knows no tool format (or a random one) emits a call
 * whose arguments parse and fit the schema. node-llama-cpp's JSON-schema grammar requires every
 * property it lists, so only a schema's required properties are kept: a call is valid without the
 * optional ones, and a model need not invent values for them.
 */

/** The JSON schema the grammar is made from; `requireCall`: no `answer` branch (the reply must be a call). */
export function strictReplySchema(tools: readonly ToolDeclaration[], requireCall: boolean): GbnfJsonSchema {
  const calls: GbnfJsonSchema[] = tools.map((tool) => ({
    type: 'object',
    properties: { tool: { const: tool.name }, arguments: toGrammarSchema(tool.parameters, 0) },
  }));
  const answer: GbnfJsonSchema = { type: 'object', properties: { answer: { type: 'string' } } };
  const branches = requireCall && calls.length > 0 ? calls : [...calls, answer];
  return branches.length === 1 ? branches[0] : { oneOf: branches };
}

/** A JSON schema (as tools declare them) reduced to what node-llama-cpp's grammar builder takes. */
export function toGrammarSchema(schema: JsonSchema | undefined, depth: number): GbnfJsonSchema {
  if (!schema || typeof schema !== 'object' || depth > 8) return { type: 'string' };
  if ('const' in schema && isScalar(schema.const)) return { const: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every(isScalar)) return { enum: schema.enum };
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union) && union.length > 0) return { oneOf: union.map((part) => toGrammarSchema(part, depth + 1)) };
  const type = Array.isArray(schema.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      const kept = Object.entries(properties).filter(([name]) => required.has(name));
      return { type: 'object', properties: Object.fromEntries(kept.map(([name, part]) => [name, toGrammarSchema(part, depth + 1)])) };
    }
    case 'array': {
      const items = toGrammarSchema(schema.items as JsonSchema | undefined, depth + 1);
      return { type: 'array', items, ...bound('minItems', schema.minItems), ...bound('maxItems', schema.maxItems) };
    }
    case 'string':
      return { type: 'string', ...bound('minLength', schema.minLength), ...bound('maxLength', schema.maxLength) };
    case 'integer':
    case 'number':
    case 'boolean':
    case 'null':
      return { type };
    default:
      return { type: 'string' };
  }
}

/** The reply, parsed: a tool call or the answer text (undefined when it is not a strict reply at all). */
export function parseStrictReply(raw: string): { call: ToolCall } | { answer: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const reply = value as { tool?: unknown; arguments?: unknown; answer?: unknown };
  if (typeof reply.tool === 'string') {
    const args = reply.arguments && typeof reply.arguments === 'object' && !Array.isArray(reply.arguments) ? (reply.arguments as Record<string, unknown>) : {};
    return { call: { id: newToolCallId(), name: reply.tool, arguments: args } };
  }
  if (typeof reply.answer === 'string') return { answer: reply.answer };
  return undefined;
}

/**
 * The answer text of a strict reply still being generated (`{"answer": "Hel` gives "Hel"), so the
 * answer streams; undefined while the reply is not (yet) an answer. An escape cut in half waits.
 */
export function partialAnswer(raw: string): string | undefined {
  const start = /^\s*\{\s*"answer"\s*:\s*"/.exec(raw);
  if (!start) return undefined;
  let text = '';
  for (let i = start[0].length; i < raw.length; i++) {
    const char = raw[i];
    if (char === '"') return text;
    if (char !== '\\') {
      text += char;
      continue;
    }
    const escape = raw[i + 1];
    if (escape === undefined) return text;
    if (escape === 'u') {
      const hex = raw.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return text;
      text += String.fromCharCode(parseInt(hex, 16));
      i += 5;
      continue;
    }
    text += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[escape] ?? escape;
    i += 1;
  }
  return text;
}

/** How a call is written in the conversation, as the model would have written it. */
export function strictCallText(call: ToolCall): string {
  return JSON.stringify({ tool: call.name, arguments: call.arguments });
}

export function strictAnswerText(text: string): string {
  return JSON.stringify({ answer: text });
}

/** The part of the system prompt that tells the model the reply format and the tools (stable turn to turn). */
export function strictToolsPrompt(tools: readonly ToolDeclaration[]): string {
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.description.split('\n')[0]}\n  arguments: ${JSON.stringify(tool.parameters)}`);
  return [
    'Reply with exactly one JSON object and nothing else.',
    'To call a tool: {"tool": "<tool name>", "arguments": {<the arguments>}}. Its result comes back in the next message.',
    'To answer the user: {"answer": "<your answer>"}.',
    '',
    'Tools:',
    ...lines,
  ].join('\n');
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function bound<K extends string>(key: K, value: unknown): Partial<Record<K, number>> {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? ({ [key]: value } as Record<K, number>) : {};
}
