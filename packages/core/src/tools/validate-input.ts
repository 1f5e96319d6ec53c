import type { AnyTool } from './tool.js';
import { PARSE_ONCE } from '../parse-once.js';

export type InputCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * Validates a call's arguments against the tool's schema: zod for built-in tools, JSON Schema for
 * tools that arrive as JSON Schema. Problems read `path: message`, for a model to fix its call.
 */
export async function validateToolInput(tool: AnyTool, input: unknown): Promise<InputCheck> {
  if (tool.schema) {
    const parsed = tool.schema.safeParse(input ?? {}, PARSE_ONCE);
    if (parsed.success) return { ok: true, value: parsed.data };
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(input)'}: ${issue.message}`) };
  }
  const value = input ?? {};
  if (!tool.inputSchema) return { ok: true, value };
  const validator = await jsonSchemaValidator(tool);
  const result = validator.validate(value);
  if (result.valid) return { ok: true, value };
  // The first error of each location is the specific one; the rest repeat it up the tree.
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const error of result.errors) {
    const where = error.instanceLocation.replace(/^#\/?/, '').replaceAll('/', '.') || '(input)';
    if (seen.has(where)) continue;
    seen.add(where);
    problems.push(`${where}: ${error.error}`);
  }
  return { ok: false, problems };
}

interface JsonValidator {
  validate(value: unknown): { valid: boolean; errors: { instanceLocation: string; error: string }[] };
}

const validators = new WeakMap<object, JsonValidator>();

async function jsonSchemaValidator(tool: AnyTool): Promise<JsonValidator> {
  const schema = tool.inputSchema!;
  let validator = validators.get(schema);
  if (!validator) {
    // Loaded on first use: only MCP and SDK tools need it.
    const { Validator } = await import('@cfworker/json-schema');
    validator = new Validator(schema, '7', false);
    validators.set(schema, validator);
  }
  return validator;
}
