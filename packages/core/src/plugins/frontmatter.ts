import jsYaml from 'js-yaml';
import { readPlainFrontmatter } from './plain-frontmatter.js';
import { recoverKeys, recoverKeysWithNotes } from './recover-keys.js';

export interface FrontmatterSplit {
  /** The YAML between the first two `---` lines; undefined when the file has no frontmatter. */
  yaml?: string;
  /** Everything after the closing `---` (or the whole text without frontmatter). */
  body: string;
  /** The file opened a frontmatter block and never closed it. */
  unclosed?: boolean;
}

export interface ParsedFrontmatter {
  data: Record<string, unknown>;
  body: string;
  hasFrontmatter: boolean;
  /** Why the frontmatter needed the lenient reader; the file still loads. */
  problem?: string;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

/** Only the first `---` block is frontmatter; later `---` lines belong to the body. */
export function splitFrontmatter(text: string): FrontmatterSplit {
  const open = OPENING.exec(text);
  if (!open) return { body: text.replace(/^\uFEFF/, '') };
  const rest = text.slice(open[0].length);
  // An empty block (`---\n---`) closes on its very first line.
  const close = CLOSING.exec(rest);
  if (!close) return { body: rest, unclosed: true };
  const yaml = rest.slice(0, close.index).replace(/\r?\n$/, '');
  const afterClose = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  return { yaml, body: afterClose };
}

/**
 * True once `text` (the start of a file) holds the whole frontmatter and the first non-empty body
 * line, which is all a listing needs; lets the loader stop reading long files early.
 */
export function headIsComplete(text: string): boolean {
  const split = splitFrontmatter(text);
  if (split.unclosed) return false;
  // Scanning by index, not by regex: a regex over a long line without a newline is quadratic.
  const start = split.body.search(/\S/);
  return start !== -1 && split.body.indexOf('\n', start) !== -1;
}

/** Parses the first frontmatter block, falling back to a line-by-line reader when YAML rejects it. */
export function parseFrontmatter(text: string): ParsedFrontmatter {
  const split = splitFrontmatter(text);
  if (split.unclosed) return parseUnclosed(split.body);
  if (split.yaml === undefined) return { data: {}, body: split.body, hasFrontmatter: false };
  if (split.yaml.trim() === '') return { data: {}, body: split.body, hasFrontmatter: true };

  try {
    // js-yaml 3's safe schema, as gray-matter (Claude Code's reader) uses it: dates, no code.
    const data: unknown = readPlainFrontmatter(split.yaml) ?? jsYaml.safeLoad(split.yaml);
    if (isRecord(data)) return { data: withRecoveredObjects(data, split.yaml), body: split.body, hasFrontmatter: true };
    return recovered(split, 'frontmatter is not a list of `key: value` lines');
  } catch (error) {
    return recovered(split, yamlReason(error));
  }
}

/**
 * `---` with no closing line: the leading `key: value` lines (up to the first blank line or other
 * text) are taken as the frontmatter the author meant, the rest as the body.
 */
function parseUnclosed(rest: string): ParsedFrontmatter {
  const lines = rest.split('\n');
  let end = 0;
  while (end < lines.length && /^([A-Za-z][\w-]*[ \t]*:|[ \t]+\S)/.test(lines[end])) end += 1;
  const yaml = lines.slice(0, end).join('\n');
  const body = lines
    .slice(end)
    .join('\n')
    .replace(/^\r?\n/, '');
  return recovered({ yaml, body }, 'frontmatter opens with --- but never closes');
}

function recovered(split: FrontmatterSplit & { yaml?: string }, reason: string): ParsedFrontmatter {
  const { data, notes } = recoverKeysWithNotes(split.yaml ?? '');
  const keys = Object.keys(data);
  const outcome = keys.length > 0 ? `recovered ${keys.join(', ')} line by line` : 'no keys could be recovered';
  return { data, body: split.body, hasFrontmatter: true, problem: [`${reason}; ${outcome}`, ...notes].join('; ') };
}

/** Keys whose value is meant as a structure, never as text. */
const STRUCTURED_KEYS = new Set(['guardrails', 'hooks', 'mcpServers', 'skills']);

/**
 * YAML can read `description: a\n  b: c` as a mapping; for the text fields we care about the
 * author meant the raw text, which the line reader gives back.
 */
function withRecoveredObjects(data: Record<string, unknown>, yaml: string): Record<string, unknown> {
  const mapped = Object.entries(data).filter(([key, value]) => isRecord(value) && !(value instanceof Date) && !STRUCTURED_KEYS.has(key));
  if (mapped.length === 0) return data;
  const raw = recoverKeys(yaml);
  const result = { ...data };
  for (const [key] of mapped) if (raw[key] !== undefined) result[key] = raw[key];
  return result;
}

function yamlReason(error: unknown): string {
  const yamlError = error as { reason?: string; mark?: { line?: number } };
  if (typeof yamlError.reason === 'string') {
    // +2: the opening `---` line, and js-yaml counts from 0.
    const line = typeof yamlError.mark?.line === 'number' ? ` near line ${yamlError.mark.line + 2}` : '';
    return `frontmatter is not valid YAML${line} (${yamlError.reason})`;
  }
  return `frontmatter is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field's value as text: numbers, booleans, dates and lists are turned back into words. */
export function asText(value: unknown, listJoiner = ' '): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return dateText(value);
  if (Array.isArray(value)) {
    const parts = value.map((item) => asText(item, listJoiner)).filter((part): part is string => part !== undefined);
    return parts.length > 0 ? parts.join(listJoiner) : undefined;
  }
  if (isRecord(value)) {
    // `key: a: b` parsed as a mapping; give back what the author typed.
    return Object.entries(value)
      .map(([key, inner]) => `${key}: ${asText(inner, listJoiner) ?? ''}`.trim())
      .join(listJoiner);
  }
  return undefined;
}

/**
 * `argument-hint: [file]` reads as a YAML list; each item was a bracketed placeholder in the
 * author's text, so the brackets come back.
 */
export function asArgumentHint(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    const parts = value.map((item) => asText(item)).filter((part): part is string => part !== undefined);
    return parts.length > 0 ? parts.map((part) => `[${part}]`).join(' ') : undefined;
  }
  return asText(value);
}

/** A list field: a YAML list, or a comma-separated string (commas inside parentheses kept). */
export function asList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    return value.flatMap((item) => (typeof item === 'string' ? splitCommaList(item) : (asText(item) ?? [])));
  }
  const text = asText(value, ',');
  if (text === undefined) return [];
  // `[Read, Grep]` arrives as text when the lenient reader recovered it.
  const bare = /^\[([\s\S]*)\]$/.exec(text);
  return splitCommaList(bare ? bare[1] : text);
}

function splitCommaList(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      items.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  items.push(current);
  return items.map((item) => item.trim().replace(/^['"]|['"]$/g, '')).filter((item) => item !== '');
}

function dateText(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** A description for files without one: the first non-empty body line, without heading marks. */
export function firstBodyLine(body: string): string | undefined {
  // Walks line by line instead of splitting: the body may be long and only its start matters.
  for (let start = 0; start < body.length;) {
    const newline = body.indexOf('\n', start);
    const end = newline === -1 ? body.length : newline;
    const text = body
      .slice(start, end)
      .trim()
      .replace(/^#+\s*/, '')
      .trim();
    if (text !== '') return text;
    start = end + 1;
  }
  return undefined;
}
