import type { HLJSApi } from 'highlight.js';
import { span, type Color, type Span } from './styled.js';

/**
 * Code highlighting with highlight.js (its 36 common languages), loaded in the background once the
 * chat is on screen: neither one-shot runs nor the chat's first frame pay for it. A block that
 * closes before it is loaded is shown plain, and highlighted on the next redraw.
 */
let hljs: HLJSApi | undefined;
let loading: Promise<void> | undefined;

export function loadHighlighter(): Promise<void> {
  loading ??= import('highlight.js/lib/common').then(
    (module) => {
      hljs = module.default;
    },
    () => undefined,
  );
  return loading;
}

/** highlight.js scopes (the first word of a class) and the colour each gets. */
export type CodePalette = Partial<Record<string, Color>>;

const DEFAULT_CODE_PALETTE: CodePalette = {
  keyword: 'magenta',
  'selector-tag': 'magenta',
  doctag: 'magenta',
  built_in: 'cyan',
  type: 'cyan',
  title: 'blue',
  name: 'blue',
  attr: 'cyan',
  attribute: 'cyan',
  string: 'green',
  regexp: 'green',
  addition: 'green',
  number: 'yellow',
  literal: 'yellow',
  symbol: 'yellow',
  bullet: 'yellow',
  variable: 'red',
  'template-variable': 'red',
  deletion: 'red',
  comment: 'gray',
  quote: 'gray',
  meta: 'gray',
};

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#x27;': "'", '&#39;': "'" };
const decode = (text: string) => text.replace(/&(?:lt|gt|amp|quot|#x27|#39);/g, (entity) => ENTITIES[entity]);

/**
 * The code's lines as coloured spans, or undefined when the language is unknown or highlight.js
 * is not loaded yet. highlight.js's output is HTML made only of `<span class="hljs-…">`, `</span>`
 * and escaped text, so a scan over those three suffices.
 */
export function highlightCode(code: string, language: string, palette: CodePalette = DEFAULT_CODE_PALETTE): Span[][] | undefined {
  const lang = language.trim().split(/[\s{]/)[0].toLowerCase();
  if (!hljs || !lang || !hljs.getLanguage(lang)) return undefined;
  let html: string;
  try {
    html = hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
  const lines: Span[][] = [[]];
  const stack: (Color | undefined)[] = [];
  const emit = (text: string) => {
    const color = stack.findLast((entry) => entry !== undefined);
    text.split('\n').forEach((piece, index) => {
      if (index > 0) lines.push([]);
      if (piece) lines[lines.length - 1].push(color ? span(piece, { color }) : span(piece));
    });
  };
  for (const token of html.split(/(<span class="[^"]*">|<\/span>)/)) {
    if (!token) continue;
    if (token.startsWith('<span')) {
      const scope = /class="hljs-([^" ]+)/.exec(token)?.[1] ?? '';
      stack.push(palette[scope] ?? palette[scope.split('.')[0]]);
    } else if (token === '</span>') stack.pop();
    else emit(decode(token));
  }
  return lines;
}
