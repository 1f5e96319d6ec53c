import { S, span, type Span, type SpanStyle } from './styled.js';

// Inline Markdown on its own: the block renderer (markdown.ts) and tables (markdown-table.ts) both
// read it, and neither imports the other back.

const CODE: SpanStyle = { color: 'yellow' };
const LINK: SpanStyle = { color: 'blue', underline: true };

function merge(base: SpanStyle | undefined, extra: SpanStyle): SpanStyle {
  return base ? { ...base, ...extra } : extra;
}

const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);

/** Finds the closing delimiter of an emphasis run that opened at `from`. */
function findClose(text: string, delimiter: string, from: number): number {
  let index = text.indexOf(delimiter, from);
  while (index !== -1) {
    const before = text[index - 1];
    const after = text[index + delimiter.length];
    const closesCleanly = before !== ' ' && !(delimiter[0] === '_' && isWordChar(after));
    // `**` inside `***` belongs to the next run; skip past a doubled single delimiter.
    const doubled = delimiter.length === 1 && text[index + 1] === delimiter;
    if (closesCleanly && !doubled && index > from) return index;
    index = text.indexOf(delimiter, index + (doubled ? 2 : 1));
  }
  return -1;
}

/** Inline Markdown: code spans, bold, italic, strikethrough, links, backslash escapes. */
export function parseInline(text: string, base?: SpanStyle): Span[] {
  const out: Span[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push(span(plain, base));
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '\\' && i + 1 < text.length && /[\\`*_{}[\]()#+\-.!~|>]/.test(text[i + 1])) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (char === '`') {
      let run = 1;
      while (text[i + run] === '`') run += 1;
      const fence = '`'.repeat(run);
      const close = text.indexOf(fence, i + run);
      if (close !== -1) {
        flush();
        out.push(span(text.slice(i + run, close), merge(base, CODE)));
        i = close + run;
        continue;
      }
      plain += fence;
      i += run;
      continue;
    }
    if (char === '*' || char === '_' || char === '~') {
      const double = text[i + 1] === char;
      const delimiter = double ? char + char : char;
      const opensCleanly = text[i + delimiter.length] !== undefined && text[i + delimiter.length] !== ' ';
      const intraword = char === '_' && isWordChar(text[i - 1]);
      if ((char !== '~' || double) && opensCleanly && !intraword) {
        const close = findClose(text, delimiter, i + delimiter.length);
        if (close !== -1) {
          flush();
          const style: SpanStyle = char === '~' ? { strikethrough: true } : double ? { bold: true } : { italic: true };
          out.push(...parseInline(text.slice(i + delimiter.length, close), merge(base, style)));
          i = close + delimiter.length;
          continue;
        }
      }
      plain += delimiter;
      i += delimiter.length;
      continue;
    }
    if (char === '[') {
      const match = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(text.slice(i));
      if (match) {
        flush();
        out.push(...parseInline(match[1], merge(base, LINK)));
        if (match[1] !== match[2]) out.push(span(` (${match[2]})`, merge(base, S.dim)));
        i += match[0].length;
        continue;
      }
    }
    plain += char;
    i += 1;
  }
  flush();
  return out;
}
