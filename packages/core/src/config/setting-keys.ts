import type * as z from 'zod';
import { settingSection, settingsSchema } from './schema.js';
import { SETTING_KEYS } from './setting-keys.generated.js';
import type { SettingKey, SettingKind } from './setting-key-types.js';
import { checksOf, describePlain, isJsonObject } from './plain-schema.js';

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
  const accepts = acceptsOf(schema);
  if (accepts) entry.accepts = accepts;
  const plain = !accepts && !key.includes('.') ? describePlain(schema) : undefined;
  if (plain) entry.plain = plain;
  return entry;
}

/** The values a schema node accepts, when they are simple enough to test without zod (see SettingKey.accepts). */
function acceptsOf(schema: z.ZodType): SettingKey['accepts'] {
  // Zod 4 keeps refinements and lengths as checks: any but `min(1)` leave the test to zod, and so do
  // formats such as z.url() (checksOf gives undefined for them).
  const checks = checksOf(schema);
  if (!checks) return undefined;
  if (checks.length > 0) return schema.def.type === 'string' && checks.length === 1 && checks[0].check === 'min_length' && checks[0].minimum === 1 ? 'nonEmptyText' : undefined;
  switch (schema.def.type) {
    case 'string':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return Object.values((schema as z.ZodEnum).enum).every((option) => typeof option === 'string') ? 'option' : undefined;
    case 'array': {
      const element = (schema as z.ZodArray<z.ZodType>).element;
      return element.def.type === 'string' && acceptsOf(element) === 'text' ? 'textList' : undefined;
    }
    case 'object': {
      // Only zod's default for unknown keys (dropped): strict() and passthrough() set a catchall.
      if ((schema as z.ZodObject).def.catchall !== undefined) return undefined;
      const children = Object.values((schema as z.ZodObject).shape) as z.ZodType[];
      return children.every((child) => child.def.type === 'optional' && acceptsOf(unwrap(child)) !== undefined) ? 'object' : undefined;
    }
    default:
      return undefined;
  }
}

/** True when `value` is one the key's schema accepts, known without zod; false means ask zod. */
export function acceptedWithoutSchema(key: SettingKey, value: unknown): boolean {
  switch (key.accepts) {
    case 'text':
      return typeof value === 'string';
    case 'nonEmptyText':
      return typeof value === 'string' && value.length >= 1;
    case 'boolean':
      return typeof value === 'boolean';
    case 'option':
      return typeof value === 'string' && (key.options ?? []).includes(value);
    case 'textList':
      if (!Array.isArray(value)) return false;
      // By index, not every(): every() skips the holes of a sparse list, which zod rejects.
      for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
      return true;
    case 'object': {
      if (!isJsonObject(value)) return false;
      return childrenOf(key.key).every(({ name, key: child }) => !Object.hasOwn(value, name) || acceptedWithoutSchema(child, value[name]));
    }
    default:
      return false;
  }
}

/** The value zod would give back for one that acceptedWithoutSchema took: lists copied, objects rebuilt in schema order without unknown keys. */
export function acceptedValue(key: SettingKey, value: unknown): unknown {
  if (key.accepts === 'textList') return (value as string[]).slice();
  if (key.accepts !== 'object') return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const { name, key: child } of childrenOf(key.key)) if (Object.hasOwn(record, name)) out[name] = acceptedValue(child, record[name]);
  return out;
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
