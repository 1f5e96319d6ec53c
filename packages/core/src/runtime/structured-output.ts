import { userMessage } from '../agent/chat-session.js';
import type { AgentRunResult, UserMessage } from '../agent/types.js';
import type { StructuredResult, TurnOutcome } from './run-turn.js';

/** A JSON Schema the final answer must satisfy (`--json-schema`, the SDK's `outputFormat`). */
export type OutputSchema = Record<string, unknown>;

/** The SDK's `outputFormat` option; `json_schema` is the only kind Claude Code defines. */
export interface OutputFormat {
  type: 'json_schema';
  schema: OutputSchema;
}

/** After a first answer that does not validate, the model is told what was wrong this many times. */
export const STRUCTURED_OUTPUT_RETRIES = 2;

type Turn = (prompts: UserMessage[], signal?: AbortSignal) => Promise<TurnOutcome>;

interface Validator {
  validate(value: unknown): { valid: boolean; errors: { instanceLocation: string; error: string }[] };
}

/**
 * Wraps a turn runner so every turn ends in JSON valid against `schema`: the prompt carries the
 * schema, a final answer that is not valid JSON for it sends the model back with what was wrong
 * (at most `retries` times), and the outcome carries `structured` (the value, or the error once
 * the retries are spent). The text answer is left as the model wrote it.
 */
export function withStructuredOutput(run: Turn, schema: OutputSchema, retries = STRUCTURED_OUTPUT_RETRIES): Turn {
  let validator: Validator | undefined;
  return async (prompts, signal) => {
    // Loaded on first use: only runs with a schema need it.
    validator ??= new (await import('@cfworker/json-schema')).Validator(schema, '7', false) as Validator;
    const last = prompts.at(-1);
    const asked = last
      ? [...prompts.slice(0, -1), { ...last, content: `${last.content}\n\n${schemaInstruction(schema)}`, display: last.display ?? last.content }]
      : prompts;
    let outcome = await run(asked, signal);
    let spent = outcome.result;
    for (let attempt = 0; ; attempt++) {
      if (outcome.refused || outcome.result.stopReason !== 'completed') return { ...outcome, result: spent };
      const problem = check(outcome.result.finalText, validator);
      if ('value' in problem) return { ...outcome, result: spent, structured: { value: problem.value } };
      if (attempt >= retries) {
        const error = `The answer did not match the JSON schema after ${retries + 1} attempts: ${problem.error}`;
        return { ...outcome, result: spent, structured: { error } };
      }
      outcome = await run([userMessage(retryInstruction(problem.error), 'follow_up')], signal);
      spent = combine(spent, outcome.result);
    }
  };
}

/** Parses a JSON Schema given as JSON text; a mistake is the caller's (a usage error). */
export function parseOutputSchema(text: string, source: string): OutputSchema {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${source} must be a JSON Schema object.`);
  return parsed as OutputSchema;
}

function schemaInstruction(schema: OutputSchema): string {
  return [
    'When you give your final answer, reply with only one JSON value (no prose, no code fence) that is valid against this JSON Schema:',
    JSON.stringify(schema),
  ].join('\n');
}

function retryInstruction(error: string): string {
  return `Your final answer was not valid against the required JSON Schema: ${error}\nReply again with only the corrected JSON value, nothing else.`;
}

function check(text: string, validator: Validator): StructuredResult {
  let value: unknown;
  try {
    value = JSON.parse(unfenced(text));
  } catch (error) {
    return { error: `it is not JSON (${(error as Error).message}).` };
  }
  const verdict = validator.validate(value);
  if (verdict.valid) return { value };
  // The innermost errors name the property; the outer ones only repeat "properties do not match".
  const errors = verdict.errors.slice(-3).map((e) => `${e.instanceLocation || '#'}: ${e.error}`);
  return { error: errors.join('; ') };
}

/** Models often wrap JSON in a ```json fence despite being told not to; the value inside counts. */
function unfenced(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return (fenced ? fenced[1] : text).trim();
}

/** The retries' model turns, tokens, time and denials count toward the one turn the caller asked for. */
function combine(before: AgentRunResult, after: AgentRunResult): AgentRunResult {
  const usage = { ...before.usage };
  usage.inputTokens += after.usage.inputTokens;
  usage.outputTokens += after.usage.outputTokens;
  usage.cacheReadTokens += after.usage.cacheReadTokens;
  usage.cacheWriteTokens += after.usage.cacheWriteTokens;
  usage.costUsd += after.usage.costUsd;
  usage.costKnown = usage.costKnown && after.usage.costKnown;
  return {
    ...after,
    turns: before.turns + after.turns,
    usage,
    apiDurationMs: before.apiDurationMs + after.apiDurationMs,
    permissionDenials: [...before.permissionDenials, ...after.permissionDenials],
  };
}
