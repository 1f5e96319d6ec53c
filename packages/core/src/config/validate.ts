import type * as z from 'zod';
import { ConfigError } from '../errors.js';
import { getDotted, isPlainObject, splitList } from './dotted.js';
import { describeValue } from './json-text.js';
import { SETTING_SECTIONS, settingSection, type BeansSettings } from './schema.js';
import {
  acceptedValue,
  acceptedWithoutSchema,
  expectedAt,
  findSettingKey,
  leafSettingKeys,
  schemaOfKey,
  suggestSettingKey,
  type SettingKey,
} from './setting-keys.js';
import { PARSE_ONCE } from '../parse-once.js';

/** `permissions.allow[2]` from a zod issue path. */
function dottedPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

/** One sentence per problem: `"maxTurns" must be a positive whole number, not the number 0`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string[] {
  return issues.map((issue) => {
    const expected = expectedAt(issue.path) ?? issue.message;
    return `"${dottedPath(issue.path)}" must be ${expected}, not ${describeValue(valueAt(input, issue.path))}`;
  });
}

/**
 * Checks one settings file's content. Unknown keys become warnings (a newer Beans may know them);
 * wrong types are a ConfigError naming the file, the key and what was expected.
 */
export function validateSettings(raw: Record<string, unknown>, file: string): { settings: BeansSettings; warnings: string[] } {
  const warnings = unknownSettingKeys(raw).map((key) => {
    const hint = suggestSettingKey(key);
    return `${file}: unknown setting "${key}" is ignored${hint ? ` (did you mean "${hint}"?)` : ''}.`;
  });
  // Key by key, as the whole (partial) settings object would check them, so a file builds the
  // schemas of the keys it has and no others.
  const settings: Record<string, unknown> = {};
  const issues: z.core.$ZodIssue[] = [];
  for (const key of SETTING_SECTIONS) {
    if (!Object.hasOwn(raw, key)) continue;
    const section = findSettingKey(key);
    const plain = section && plainSectionValue(section, raw[key]);
    if (plain) {
      settings[key] = plain.value;
      continue;
    }
    const result = settingSection(key)!.safeParse(raw[key], PARSE_ONCE);
    if (result.success) settings[key] = result.data;
    else issues.push(...result.error.issues.map((issue) => ({ ...issue, path: [key, ...issue.path] })));
  }
  if (issues.length > 0) {
    const problems = describeIssues(issues, raw);
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    throw new ConfigError(`Invalid settings in ${file}: ${shown}${more}. Fix the file, or remove the key${problems.length > 1 ? 's' : ''}.`);
  }
  return { settings: settings, warnings };
}

/** A value validateSettingsLeniently left out, and what its key takes. */
export interface InvalidSetting {
  key: string;
  value: unknown;
  problem: string;
}

/**
 * validateSettings for a file whose mistakes must not stop a run (an untrusted repository's): each
 * value that does not fit its key is left out and returned, the rest is checked as usual; a section
 * that is wrong as a whole (`"tools": 5`) is left out whole.
 */
export function validateSettingsLeniently(
  raw: Record<string, unknown>,
  file: string,
): { settings: BeansSettings; warnings: string[]; invalid: InvalidSetting[] } {
  try {
    return { ...validateSettings(raw, file), invalid: [] };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  const kept = structuredClone(raw);
  const invalid: InvalidSetting[] = [];
  for (const { key } of leafSettingKeys()) {
    const value = getDotted(kept, key);
    const setting = value === undefined ? undefined : findSettingKey(key);
    const problem = setting && checkSettingValue(setting, value);
    if (!problem) continue;
    invalid.push({ key, value, problem: `not valid: "${problem.at}" must be ${problem.expected}` });
    deleteDotted(kept, key);
  }
  for (const section of SETTING_SECTIONS) {
    if (!Object.hasOwn(kept, section)) continue;
    try {
      validateSettings({ [section]: kept[section] }, file);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      invalid.push({ key: section, value: kept[section], problem: 'not valid' });
      delete kept[section];
    }
  }
  return { ...validateSettings(kept, file), invalid };
}

function deleteDotted(root: Record<string, unknown>, key: string): void {
  const parts = key.split('.');
  const parent = parts.length === 1 ? root : getDotted(root, parts.slice(0, -1).join('.'));
  if (isPlainObject(parent)) delete parent[parts[parts.length - 1]];
}

/**
 * A section's value as zod returns it when it fits what setting-keys.generated.ts says the section
 * takes (`accepts`, `plain`); undefined means zod must check it.
 */
function plainSectionValue(section: SettingKey, value: unknown): { value: unknown } | undefined {
  return acceptedWithoutSchema(section, value) ? { value: acceptedValue(section, value) } : undefined;
}

/** Dotted keys of `value` (a settings object, or a part of one under `prefix`) that the schema lacks. */
export function unknownSettingKeys(value: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, child] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${name}` : name;
    const known = findSettingKey(key);
    if (!known) out.push(key);
    else if (known.kind === 'object' && isPlainObject(child)) out.push(...unknownSettingKeys(child, key));
  }
  return out;
}

/**
 * Turns text (an environment variable, a `config set` argument, a string flag) into the key's type:
 * numbers, booleans, comma lists, or JSON when it starts with `[` or `{`. What cannot be converted
 * is returned unchanged so that validation reports it against what was expected.
 */
export function parseSettingText(key: SettingKey, text: string): unknown {
  const trimmed = text.trim();
  if (key.kind !== 'string' && key.kind !== 'enum' && /^[[{]/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  switch (key.kind) {
    case 'number':
    case 'integer':
      return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (['true', 'yes', 'on', '1'].includes(lower)) return true;
      if (['false', 'no', 'off', '0'].includes(lower)) return false;
      return text;
    }
    case 'list':
      return splitList(text);
    case 'enum':
      return trimmed;
    default:
      return text;
  }
}

export interface SettingProblem {
  /** Dotted key of the wrong part, e.g. `permissions.allow[1]`. */
  at: string;
  expected: string;
  /** The offending value, in words. */
  got: string;
}

/** Validates a value for one key; undefined when it fits. */
export function checkSettingValue(key: SettingKey, value: unknown): SettingProblem | undefined {
  if (acceptedWithoutSchema(key, value)) return undefined;
  const result = schemaOfKey(key.key).safeParse(value, PARSE_ONCE);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  return {
    at: dottedPath([...key.key.split('.'), ...issue.path]),
    expected: expectedAt([...key.key.split('.'), ...issue.path]) ?? key.expected,
    got: describeValue(valueAt(value, issue.path)),
  };
}
