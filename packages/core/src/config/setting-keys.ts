import type * as z from 'zod';
import { settingSection, settingsSchema } from './schema.js';
import { SETTING_KEYS } from './setting-keys.generated.js';
import type { PlainSchema, SettingKey, SettingKind } from './setting-key-types.js';
import { describePlain, fitsPlain, plainValue } from './plain-schema.js';

export type { SettingKey, SettingKind };

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current.def.type === 'optional') current = (current as z.ZodOptional).unwrap() as z.ZodType;
  return current;
}

function kindOf(schema: z.ZodType): SettingKind {
  switch (schema.def.type) {
    case 'string':
      return 'string';
    case 'number':
      return (schema as z.ZodNumber).isInt ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return 'enum';
    case 'array':
      return 'list';
    case 'object':
      return 'object';
    case 'record':
      return 'record';
    default:
      throw new Error(`settings schema: unsupported type ${schema.def.type}`);
  }
}

function describeNode(key: string, schema: z.ZodType): SettingKey {
  const kind = kindOf(schema);
  const entry: SettingKey = { key, kind, expected: schema.description ?? kind };
  if (kind === 'enum') entry.options = (schema as z.ZodEnum).options as string[];
  // One description of the schema as data: a leaf or an object of optional leaves is named by
  // `accepts` (its children are keys of their own); another top-level section keeps the whole data.
  const plain = describePlain(schema);
  const accepts = acceptsOf(plain);
  if (accepts) entry.accepts = accepts;
  else if (plain && !key.includes('.')) entry.plain = plain;
  return entry;
}

/** What a schema described as plain data accepts, when it is one of SettingKey.accepts' shapes. */
function acceptsOf(plain: PlainSchema | undefined): SettingKey['accepts'] {
  switch (plain?.type) {
    case 'string':
      return plain.nonEmpty ? 'nonEmptyText' : 'text';
    case 'boolean':
      return 'boolean';
    case 'option':
      return 'option';
    case 'list':
      return plain.of.type === 'string' && !plain.of.nonEmpty ? 'textList' : undefined;
    case 'object':
      return plain.keys.every((child) => child.optional && acceptsOf(child.schema) !== undefined) ? 'object' : undefined;
    default:
      return undefined;
  }
}

const plainSchemas = new WeakMap<SettingKey, PlainSchema | null>();

/**
 * The key's schema as plain data (config/plain-schema.ts): its `plain`, or what its `accepts` names,
 * an object's keys being its children in the table. Undefined when only zod can check the key.
 */
function plainSchemaOf(key: SettingKey): PlainSchema | undefined {
  if (key.plain) return key.plain;
  let schema = plainSchemas.get(key);
  if (schema === undefined) {
    schema = fromAccepts(key) ?? null;
    plainSchemas.set(key, schema);
  }
  return schema ?? undefined;
}

function fromAccepts(key: SettingKey): PlainSchema | undefined {
  switch (key.accepts) {
    case 'text':
      return { type: 'string' };
    case 'nonEmptyText':
      return { type: 'string', nonEmpty: true };
    case 'boolean':
      return { type: 'boolean' };
    case 'option':
      return { type: 'option', options: [...(key.options ?? [])] };
    case 'textList':
      return { type: 'list', of: { type: 'string' } };
    case 'object': {
      const keys: Array<{ name: string; optional: true; schema: PlainSchema }> = [];
      for (const { name, key: child } of childrenOf(key.key)) {
        const schema = plainSchemaOf(child);
        if (!schema) return undefined;
        keys.push({ name, optional: true, schema });
      }
      return { type: 'object', keys };
    }
    default:
      return undefined;
  }
}

/** True when `value` is one the key's schema accepts, known without zod; false means ask zod. */
export function acceptedWithoutSchema(key: SettingKey, value: unknown): boolean {
  const schema = plainSchemaOf(key);
  return schema !== undefined && fitsPlain(schema, value);
}

/** The value zod would give back for one that acceptedWithoutSchema took: lists copied, objects rebuilt in schema order without unknown keys. */
export function acceptedValue(key: SettingKey, value: unknown): unknown {
  return plainValue(plainSchemaOf(key)!, value);
}

let children: Map<string, Array<{ name: string; key: SettingKey }>> | undefined;

/** The keys directly under an object key, in schema order. */
function childrenOf(parent: string): Array<{ name: string; key: SettingKey }> {
  if (!children) {
    children = new Map();
    for (const key of table().values()) {
      const dot = key.key.lastIndexOf('.');
      if (dot === -1) continue;
      const siblings = children.get(key.key.slice(0, dot)) ?? [];
      siblings.push({ name: key.key.slice(dot + 1), key });
      children.set(key.key.slice(0, dot), siblings);
    }
  }
  return children.get(parent) ?? [];
}

function walk(prefix: string, schema: z.ZodObject, out: SettingKey[]): void {
  for (const [name, child] of Object.entries(schema.shape)) {
    const key = prefix ? `${prefix}.${name}` : name;
    const node = unwrap(child as z.ZodType);
    out.push(describeNode(key, node));
    if (node.def.type === 'object') walk(key, node as z.ZodObject, out);
  }
}

/**
 * The keys as the schema defines them. Start-up reads them from setting-keys.generated.ts instead
 * (scripts/precompute.mjs writes it from this): building the schema to list its keys cost ~5 ms.
 */
export function settingKeysOfSchema(): SettingKey[] {
  const all: SettingKey[] = [];
  walk('', settingsSchema(), all);
  return all;
}

/** The schema of one key, for checking a value given for it alone (a flag, a variable, `config set`). */
export function schemaOfKey(key: string): z.ZodType {
  const [section, ...rest] = key.split('.');
  let node = unwrap(settingSection(section)!);
  for (const name of rest) node = unwrap((node as z.ZodObject).shape[name] as z.ZodType);
  return node;
}

let cached: Map<string, SettingKey> | undefined;

function table(): Map<string, SettingKey> {
  return (cached ??= new Map(SETTING_KEYS.map((k) => [k.key, k])));
}

/** Every key of the schema, objects and leaves, in schema order. */
export function allSettingKeys(): SettingKey[] {
  return [...table().values()];
}

/** Leaf keys only: the ones that hold values (`beans config` lists these). */
export function leafSettingKeys(): SettingKey[] {
  return allSettingKeys().filter((k) => k.kind !== 'object');
}

export function findSettingKey(key: string): SettingKey | undefined {
  return table().get(key);
}

/**
 * The schema node at a validation issue's path; array indexes map to the element. Used to say what
 * was expected at exactly the place that was wrong.
 */
export function expectedAt(path: readonly PropertyKey[]): string | undefined {
  let node: z.ZodType = settingsSchema();
  for (const segment of path) {
    node = unwrap(node);
    if (node.def.type === 'object' && typeof segment === 'string') {
      const child = (node as z.ZodObject).shape[segment] as z.ZodType | undefined;
      if (!child) return undefined;
      node = child;
    } else if (node.def.type === 'array' && typeof segment === 'number') {
      node = (node as z.ZodArray<z.ZodType>).element;
    } else if (node.def.type === 'record' && typeof segment === 'string') {
      node = (node as z.ZodRecord).valueType as z.ZodType;
    } else {
      return undefined;
    }
  }
  const target = unwrap(node);
  if (target.def.type === 'object' && path.length > 0) return `an object with the keys ${Object.keys((target as z.ZodObject).shape).join(', ')}`;
  return target.description;
}

/** The known key closest to a mistyped one, for "did you mean" hints. */
export function suggestSettingKey(key: string): string | undefined {
  const keys = allSettingKeys().map((k) => k.key);
  const lower = key.toLowerCase();
  const caseOnly = keys.find((k) => k.toLowerCase() === lower);
  if (caseOnly) return caseOnly;
  // `mode` -> `permissions.mode`, `ui.dirs` -> `plugins.dirs`: the last segment alone is often right.
  const last = lower.split('.').pop() ?? lower;
  const byLast = keys.filter((k) => (k.split('.').pop() ?? k).toLowerCase() === last);
  if (byLast.length === 1) return byLast[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of keys) {
    const d = Math.min(editDistance(lower, candidate.toLowerCase()), editDistance(last, (candidate.split('.').pop() ?? '').toLowerCase()) + 1);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}
