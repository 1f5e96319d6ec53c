import type jsonataType from 'jsonata';

// JSONata costs a few milliseconds to load; only workflow runs pay for it.
let loaded: typeof jsonataType | undefined;
async function jsonata(): Promise<typeof jsonataType> {
  loaded ??= (await import('jsonata')).default;
  return loaded;
}

type Expression = ReturnType<typeof jsonataType>;
const compiled = new Map<string, Expression>();

/** A piece of a `${...}` template: literal text or an expression. */
type TemplatePart = { text: string } | { expression: string; offset: number };

/** Why an expression or template is not valid, with the character offset inside the string. */
export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * Splits `a ${x} b` into parts. Braces inside an expression nest and quoted strings are skipped,
 * so `${ {"k": "}"} }` is one expression.
 */
export function splitTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('${', at);
    if (open === -1) break;
    if (open > at) parts.push({ text: template.slice(at, open) });
    const close = matchingBrace(template, open + 2);
    if (close === -1) throw new ExpressionSyntaxError('a "${" is never closed with "}"', open);
    parts.push({ expression: template.slice(open + 2, close), offset: open + 2 });
    at = close + 1;
  }
  if (at < template.length) parts.push({ text: template.slice(at) });
  return parts;
}

function matchingBrace(text: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'" || char === '`') quote = char;
    else if (char === '{') depth++;
    else if (char === '}') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** `"${expr}"` (one whole template) or a bare expression: the JSONata text inside. */
export function expressionOf(text: string): { expression: string; offset: number } {
  const parts = splitTemplate(text.trim());
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only && 'expression' in only) return { expression: only.expression, offset: text.indexOf('${') + 2 };
  return { expression: text, offset: 0 };
}

/** Compiles (once) a JSONata expression; a syntax error says where. */
export async function compileExpression(expression: string): Promise<Expression> {
  let found = compiled.get(expression);
  if (!found) {
    const create = await jsonata();
    try {
      found = create(expression);
    } catch (error) {
      const detail = error as { message?: string; position?: number };
      throw new ExpressionSyntaxError(`${detail.message ?? String(error)}`, Math.max(0, (detail.position ?? 1) - 1));
    }
    compiled.set(expression, found);
  }
  return found;
}

/**
 * A JavaScript habit JSONata does not share: `items.length` is the `length` field of each item, so
 * for a list it yields nothing and a comparison with it is quietly false. True when a path of the
 * (valid) expression steps into `length`; `$count(items)` and `$length(text)` are the JSONata words.
 */
export async function usesLengthField(expression: string): Promise<boolean> {
  const ast: unknown = (await compileExpression(expression)).ast();
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(visit);
    if (!node || typeof node !== 'object') return false;
    const record = node as { type?: string; steps?: { type?: string; value?: unknown }[] };
    if (record.type === 'path' && record.steps?.some((step, index) => index > 0 && step.type === 'name' && step.value === 'length')) return true;
    return Object.values(record).some(visit);
  };
  return visit(ast);
}

/** Every `${...}` in a value (strings anywhere inside objects and lists), compiled to check it. */
export async function checkTemplates(value: unknown): Promise<void> {
  if (typeof value === 'string') {
    for (const part of splitTemplate(value)) {
      if (!('expression' in part)) continue;
      try {
        await compileExpression(part.expression);
      } catch (error) {
        if (error instanceof ExpressionSyntaxError) throw new ExpressionSyntaxError(error.message, part.offset + error.offset);
        throw error;
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) await checkTemplates(item);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) await checkTemplates(item);
  }
}

/** Evaluates a JSONata expression against the run's scope (`input`, artifacts, loop variables). */
export async function evaluate(expression: string, scope: Record<string, unknown>): Promise<unknown> {
  const result: unknown = await (await compileExpression(expression)).evaluate(scope);
  return plain(result);
}

/**
 * Renders templates inside a value: a string that is exactly one `${...}` becomes the value itself
 * (a list stays a list); text with templates in it becomes text.
 */
export async function renderValue(value: unknown, scope: Record<string, unknown>): Promise<unknown> {
  if (typeof value === 'string') {
    const parts = splitTemplate(value);
    if (parts.length === 1 && 'expression' in parts[0]) return evaluate(parts[0].expression, scope);
    let text = '';
    for (const part of parts) {
      if ('text' in part) text += part.text;
      else {
        const result = await evaluate(part.expression, scope);
        text += result === undefined ? '' : typeof result === 'string' ? result : JSON.stringify(result);
      }
    }
    return text;
  }
  if (Array.isArray(value)) return Promise.all(value.map((item) => renderValue(item, scope)));
  if (value && typeof value === 'object') {
    const entries = await Promise.all(Object.entries(value).map(async ([key, item]) => [key, await renderValue(item, scope)] as const));
    return Object.fromEntries(entries);
  }
  return value;
}

// JSONata marks sequences with extra properties; checkpoints want plain JSON.
function plain(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value)) as unknown;
}
