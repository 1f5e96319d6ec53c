import { S, span, wrapSpans, type Span, type SpanStyle, type StyledLine } from './styled.js';

/**
 * A line-oriented Markdown renderer for the terminal. Models write answers whose line breaks are
 * meant as written, so each source line renders on its own, given only whether it sits inside a
 * fenced code block. That makes streaming cheap: a finished line never changes, so it can move to
 * the terminal's scrollback at once, and a 3,000-line answer costs 3,000 small renders, not 3,000
 * re-renders of everything so far.
 */

export interface MarkdownState {
  fence?: { marker: string; lang: string };
}

const CODE: SpanStyle = { color: 'yellow' };
const GUTTER: SpanStyle = { color: 'gray' };
const LINK: SpanStyle = { color: 'blue', underline: true };
const HEADINGS: SpanStyle[] = [
  { bold: true, underline: true, color: 'magenta' },
  { bold: true, color: 'magenta' },
  { bold: true },
];
const BULLETS = ['•', '◦', '▪'];

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
    const char = text[i]!;
    if (char === '\\' && i + 1 < text.length && /[\\`*_{}[\]()#+\-.!~|>]/.test(text[i + 1]!)) {
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
        out.push(...parseInline(match[1]!, merge(base, LINK)));
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

const FENCE = /^\s*(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^\s*>\s?(.*)$/;
const BULLET = /^(\s*)([-*+])\s+(?:\[([ xX])\]\s+)?(.*)$/;
const ORDERED = /^(\s*)(\d{1,9}[.)])\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Renders one source line, updating the fence state; returns terminal rows. */
export function renderMarkdownLine(raw: string, state: MarkdownState, width: number): StyledLine[] {
  const line = raw.replace(/\s+$/, '');
  const fence = state.fence;
  if (fence) {
    const closing = FENCE.exec(line);
    if (closing && closing[1]![0] === fence.marker[0] && closing[1]!.length >= fence.marker.length && !closing[2]) {
      state.fence = undefined;
      return [[span('╰─', GUTTER)]];
    }
    return wrapSpans([span(raw.replace(/\s+$/, ''))], width, { first: [span('│ ', GUTTER)], continuation: [span('│ ', GUTTER)], hard: true });
  }
  const opening = FENCE.exec(line);
  if (opening) {
    state.fence = { marker: opening[1]!, lang: opening[2] ?? '' };
    return [[span(`╭─ ${opening[2] || 'code'}`, GUTTER)]];
  }
  if (!line.trim()) return [[]];
  const heading = HEADING.exec(line);
  if (heading) {
    const style = HEADINGS[Math.min(heading[1]!.length, HEADINGS.length) - 1]!;
    return wrapSpans(parseInline(heading[2]!, style), width);
  }
  if (RULE.test(line)) return [[span('─'.repeat(Math.max(1, Math.min(width, 60))), GUTTER)]];
  const quote = QUOTE.exec(line);
  if (quote) {
    const gutter = [span('▎ ', GUTTER)];
    return wrapSpans(parseInline(quote[1]!, { italic: true, dim: true }), width, { first: gutter, continuation: gutter });
  }
  const bullet = BULLET.exec(line);
  if (bullet) {
    const indent = ' '.repeat(Math.min(bullet[1]!.length, 12));
    const level = Math.floor(bullet[1]!.length / 2);
    const task = bullet[3];
    const marker = task === undefined ? `${BULLETS[Math.min(level, BULLETS.length - 1)]} ` : task === ' ' ? '☐ ' : '☑ ';
    const body = parseInline(bullet[4]!, task !== undefined && task !== ' ' ? S.dim : undefined);
    return wrapSpans(body, width, {
      first: [span(indent), span(marker, task === undefined ? S.cyan : undefined)],
      continuation: [span(indent + ' '.repeat(marker.length))],
    });
  }
  const ordered = ORDERED.exec(line);
  if (ordered) {
    const indent = ' '.repeat(Math.min(ordered[1]!.length, 12));
    const marker = `${ordered[2]} `;
    return wrapSpans(parseInline(ordered[3]!), width, {
      first: [span(indent), span(marker, S.cyan)],
      continuation: [span(indent + ' '.repeat(marker.length))],
    });
  }
  if (line.trimStart().startsWith('|')) {
    if (TABLE_RULE.test(line)) return wrapSpans([span(line, GUTTER)], width, { hard: true });
    const cells: Span[] = [];
    line.split('|').forEach((cell, index, all) => {
      if (index > 0) cells.push(span('|', GUTTER));
      if (index > 0 && index < all.length - 1) cells.push(...parseInline(cell));
      else if (cell.trim()) cells.push(...parseInline(cell));
    });
    return wrapSpans(cells, width);
  }
  const leading = /^\s*/.exec(line)![0];
  return wrapSpans(parseInline(line.slice(leading.length)), width, { first: leading ? [span(leading)] : [] });
}

export function renderMarkdown(text: string, width: number): StyledLine[] {
  const state: MarkdownState = {};
  const out: StyledLine[] = [];
  for (const line of text.split('\n')) out.push(...renderMarkdownLine(line, state, width));
  return out;
}

/**
 * Markdown arriving in pieces. `push` returns the rows of lines that just completed (they never
 * change again); `tail` renders the unfinished last line without committing it. Blank lines are
 * held back until something follows them, so an answer never ends (or starts) with empty rows.
 */
export class MarkdownStream {
  private readonly state: MarkdownState = {};
  private partial = '';
  private heldBlanks = 0;
  private started = false;

  constructor(public width: number) {}

  push(delta: string): StyledLine[] {
    const text = this.partial + delta;
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak === -1) {
      this.partial = text;
      return [];
    }
    this.partial = text.slice(lastBreak + 1);
    const out: StyledLine[] = [];
    for (const line of text.slice(0, lastBreak).split('\n')) this.commitLine(line, out);
    return out;
  }

  /** The unfinished line as it would render now. */
  tail(width = this.width): StyledLine[] {
    if (!this.partial.trim()) return [];
    const preview: MarkdownState = { fence: this.state.fence };
    const lines = renderMarkdownLine(this.partial, preview, width);
    return this.started && this.heldBlanks > 0 ? [[], ...lines] : lines;
  }

  /** Ends the stream: the unfinished line is committed as it stands. */
  end(): StyledLine[] {
    const out: StyledLine[] = [];
    if (this.partial) this.commitLine(this.partial, out);
    this.partial = '';
    // A code block the model never closed still gets its bottom border.
    if (this.state.fence) {
      this.state.fence = undefined;
      out.push([span('╰─', GUTTER)]);
    }
    return out;
  }

  get hasOutput(): boolean {
    return this.started || this.partial.trim() !== '';
  }

  private commitLine(line: string, out: StyledLine[]): void {
    if (!this.state.fence && !line.trim()) {
      if (this.started) this.heldBlanks = 1;
      return;
    }
    if (this.heldBlanks > 0) out.push([]);
    this.heldBlanks = 0;
    this.started = true;
    out.push(...renderMarkdownLine(line, this.state, this.width));
  }
}
