import type * as z from 'zod';
import type { PlainSchema } from './setting-key-types.js';

// A settings key whose zod schema is made only of strings, literals, numbers, booleans, enums,
// lists and objects with simple checks is written down as data at build time (scripts/precompute.mjs
// via setting-keys.ts); a value that fits it is taken as zod would return it, without building the
// schema in zod, whose first use costs milliseconds. Anything that does not fit goes to zod, which
// says what is wrong, so messages never change.

type Check = { check: string; minimum?: unknown; value?: unknown; inclusive?: boolean };

/**
 * A schema node's checks (refinements, lengths, bounds), or undefined when the node itself is one:
 * zod 4 builds z.int(), z.url(), z.email()... as a number or string whose def carries `check` and
 * `format`, and z.coerce.* converts what it gets; those are left to zod.
 */
function checksOf(schema: z.ZodType): Check[] | undefined {
  const def = schema.def as { check?: unknown; format?: unknown; coerce?: unknown; checks?: Array<{ _zod: { def: Check } }> };
  if (def.check !== undefined || def.format !== undefined || def.coerce) return undefined;
  return (def.checks ?? []).map((check) => check._zod.def);
}

/** The schema as data, or undefined when a part of it needs zod (a refinement, a format, a union...). */
export function describePlain(schema: z.ZodType): PlainSchema | undefined {
  const checks = checksOf(schema);
  if (!checks) return undefined;
  const only = (check: Check) => checks.length === 1 && Object.entries(check).every(([key, value]) => (checks[0] as Record<string, unknown>)[key] === value);
  switch (schema.def.type) {
    case 'string':
      if (checks.length === 0) return { type: 'string' };
      return only({ check: 'min_length', minimum: 1 }) ? { type: 'string', nonEmpty: true } : undefined;
    case 'number':
      if (checks.length === 0) return { type: 'number' };
      return only({ check: 'greater_than', value: 0, inclusive: false }) ? { type: 'number', positive: true } : undefined;
    case 'boolean':
      return checks.length === 0 ? { type: 'boolean' } : undefined;
    case 'literal': {
      const values = (schema as z.ZodLiteral).def.values;
      return checks.length === 0 && values.length === 1 && typeof values[0] === 'string' ? { type: 'literal', value: values[0] } : undefined;
    }
    case 'enum': {
      const options = Object.values((schema as z.ZodEnum).enum);
      return checks.length === 0 && options.every((option) => typeof option === 'string') ? { type: 'option', options: options } : undefined;
    }
    case 'array': {
      const of = checks.length === 0 ? describePlain((schema as z.ZodArray<z.ZodType>).element) : undefined;
      return of ? { type: 'list', of } : undefined;
    }
    case 'object': {
      // Only zod's default for unknown keys (dropped): strict() and passthrough() set a catchall.
      if (checks.length > 0 || (schema as z.ZodObject).def.catchall !== undefined) return undefined;
      const keys: Array<{ name: string; optional?: true; schema: PlainSchema }> = [];
      for (const [name, child] of Object.entries<z.ZodType>((schema as z.ZodObject).shape)) {
        const optional = child.def.type === 'optional';
        const inner = describePlain(optional ? ((child as z.ZodOptional).unwrap() as z.ZodType) : child);
        if (!inner) return undefined;
        keys.push({ name, ...(optional ? { optional: true as const } : {}), schema: inner });
      }
      return { type: 'object', keys };
    }
    default:
      return undefined;
  }
}

/** True when zod would accept `value`, known from the data alone; false means ask zod. */
export function fitsPlain(schema: PlainSchema, value: unknown): boolean {
  switch (schema.type) {
    case 'string':
      return typeof value === 'string' && (!schema.nonEmpty || value.length >= 1);
    case 'literal':
      return value === schema.value;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && (!schema.positive || value > 0);
    case 'boolean':
      return typeof value === 'boolean';
    case 'option':
      return typeof value === 'string' && schema.options.includes(value);
    case 'list':
      if (!Array.isArray(value)) return false;
      // By index, not every(): every() skips the holes of a sparse list, which zod rejects.
      for (let i = 0; i < value.length; i++) if (!fitsPlain(schema.of, value[i])) return false;
      return true;
    case 'object': {
      if (!isJsonObject(value)) return false;
      // A key set to undefined is left to zod (it keeps such keys in what it returns).
      return schema.keys.every((key) =>
        Object.hasOwn(value, key.name) ? value[key.name] !== undefined && fitsPlain(key.schema, value[key.name]) : key.optional === true,
      );
    }
  }
}

/** What zod returns for a value that fitsPlain took: lists copied, objects rebuilt in schema order without unknown keys. */
export function plainValue(schema: PlainSchema, value: unknown): unknown {
  if (schema.type === 'list') return (value as unknown[]).map((item) => plainValue(schema.of, item));
  if (schema.type !== 'object') return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of schema.keys) if (Object.hasOwn(record, key.name)) out[key.name] = plainValue(key.schema, record[key.name]);
  return out;
}

/** An object as JSON makes them; anything else (a Date, a class instance) is left to zod. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
