import { ConfigError } from '../errors.js';

/** Parses a settings file's text into a JSON object; errors name the file, line and column. */
export function parseJsonObject(text: string, file: string): Record<string, unknown> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // An empty file (e.g. just `touch`ed) is an empty settings object, not a syntax error.
  if (body.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    // V8's messages carry a position only for some errors, so find the spot ourselves.
    const problem = locateJsonError(body) ?? { offset: 0, reason: (error as Error).message };
    const { line, column } = lineAndColumn(body, problem.offset);
    throw new ConfigError(`${file}:${line}:${column}: the settings file is not valid JSON: ${problem.reason}. Fix it, or remove the file.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${file}: the settings file must hold a JSON object ({ ... }), not ${describeValue(value)}.`);
  }
  return value as Record<string, unknown>;
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class JsonSyntaxProblem extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** A strict JSON recogniser that reports where the first error is; only run after JSON.parse failed. */
function locateJsonError(text: string): { offset: number; reason: string } | undefined {
  let i = 0;
  const fail = (reason: string): never => {
    throw new JsonSyntaxProblem(i, i >= text.length ? 'the file ends too early' : reason);
  };
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i) && !/\w/.test(text[i + word.length] ?? '')) {
      i += word.length;
      return;
    }
    const got = /^\w*/.exec(text.slice(i, i + 40))?.[0] ?? '';
    fail(word.startsWith(got) ? `unexpected ${got} (did you mean ${word}?)` : `unexpected ${got} (text values need double quotes)`);
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length) {
      const ch = text[i];
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') {
        const next = text[i + 1];
        if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else fail('invalid escape in a string');
      } else if (ch < ' ') {
        fail(ch === '\n' ? 'a string is not closed on its line' : 'a control character inside a string');
      } else {
        i++;
      }
    }
    fail('a string is not closed');
  };
  const number = () => {
    const re = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    re.lastIndex = i;
    if (!re.exec(text)) fail('invalid number');
    i = re.lastIndex;
  };
  const value = (): void => {
    skipSpace();
    const ch = text[i];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"') return string();
    if (ch === 't') return literal('true');
    if (ch === 'f') return literal('false');
    if (ch === 'n') return literal('null');
    if (ch === '-' || (ch >= '0' && ch <= '9')) return number();
    if (ch === "'") fail('strings need double quotes');
    const word = /^[A-Za-z_]\w*/.exec(text.slice(i, i + 40));
    if (word) fail(`unexpected ${word[0]} (text values need double quotes)`);
    fail(`unexpected ${JSON.stringify(ch ?? '')}`);
  };
  const object = () => {
    i++;
    skipSpace();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[i] !== '"') fail(text[i] === '}' ? 'a comma before "}" (trailing commas are not allowed)' : 'expected a property name in double quotes');
      string();
      skipSpace();
      if (text[i] !== ':') fail('expected ":" after the property name');
      i++;
      value();
      skipSpace();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail('expected "," or "}" (a comma may be missing)');
    }
  };
  const array = () => {
    i++;
    skipSpace();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[i] === ']') fail('a comma before "]" (trailing commas are not allowed)');
      value();
      skipSpace();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail('expected "," or "]" (a comma may be missing)');
    }
  };
  try {
    value();
    skipSpace();
    if (i < text.length) fail('unexpected text after the end of the JSON value');
    return undefined;
  } catch (problem) {
    if (problem instanceof JsonSyntaxProblem) return { offset: problem.offset, reason: problem.reason };
    throw problem;
  }
}

/** How a JSON file is laid out, so a rewrite looks like the user's own edit. */
export interface JsonFormat {
  /** Indentation unit ('\t' or spaces); undefined for a single-line file. */
  indent?: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

export function detectJsonFormat(text: string): JsonFormat {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = text === '' || /\n$/.test(text);
  const trimmed = text.trim();
  const singleLine = trimmed !== '' && trimmed !== '{}' && !trimmed.includes('\n');
  if (singleLine) return { eol, finalNewline };
  const indented = /^([ \t]+)\S/m.exec(text);
  const indent = indented ? (indented[1].startsWith('\t') ? '\t' : indented[1]) : '  ';
  return { indent, eol, finalNewline };
}

export function formatJson(value: unknown, format: JsonFormat): string {
  let out = JSON.stringify(value, null, format.indent);
  if (format.eol === '\r\n') out = out.replace(/\n/g, '\r\n');
  return format.finalNewline ? out + format.eol : out;
}
