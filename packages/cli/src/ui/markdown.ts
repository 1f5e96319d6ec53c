import { highlightCode } from './highlight.js';
import { parseInline } from './markdown-inline.js';
import { isTableRow, renderTable } from './markdown-table.js';
import { S, span, wrapSpans, type Span, type SpanStyle, type StyledLine } from './styled.js';

/**
 * A line-oriented Markdown renderer for the terminal. Models write answers whose line breaks are
 * meant as written, so each source line renders on its own, given only whether it sits inside a
 * fenced code block. That makes streaming cheap: a finished line never changes, so it can move to
 * the terminal's scrollback at once, and a 3,000-line answer costs 3,000 small renders, not 3,000
 * re-renders of everything so far.
 */

export { parseInline };

interface MarkdownState {
  fence?: { marker: string; lang: string };
}

const GUTTER: SpanStyle = { color: 'gray' };
const HEADINGS: SpanStyle[] = [{ bold: true, underline: true, color: 'magenta' }, { bold: true, color: 'magenta' }, { bold: true }];
const BULLETS = ['•', '◦', '▪'];

const FENCE = /^\s*(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^\s*>\s?(.*)$/;
const BULLET = /^(\s*)([-*+])\s+(?:\[([ xX])\]\s+)?(.*)$/;
const ORDERED = /^(\s*)(\d{1,9}[.)])\s+(.*)$/;

/** Renders one source line, updating the fence state; returns terminal rows. */
function renderMarkdownLine(raw: string, state: MarkdownState, width: number): StyledLine[] {
  const line = raw.replace(/\s+$/, '');
  const fence = state.fence;
  if (fence) {
    const closing = FENCE.exec(line);
    if (closing && closing[1][0] === fence.marker[0] && closing[1].length >= fence.marker.length && !closing[2]) {
      state.fence = undefined;
      return [[span('╰─', GUTTER)]];
    }
    return wrapSpans([span(raw.replace(/\s+$/, ''))], width, { first: [span('│ ', GUTTER)], continuation: [span('│ ', GUTTER)], hard: true });
  }
  const opening = FENCE.exec(line);
  if (opening) {
    state.fence = { marker: opening[1], lang: opening[2] ?? '' };
    return [[span(`╭─ ${opening[2] || 'code'}`, GUTTER)]];
  }
  if (!line.trim()) return [[]];
  const heading = HEADING.exec(line);
  if (heading) {
    const style = HEADINGS[Math.min(heading[1].length, HEADINGS.length) - 1];
    return wrapSpans(parseInline(heading[2], style), width);
  }
  if (RULE.test(line)) return [[span('─'.repeat(Math.max(1, Math.min(width, 60))), GUTTER)]];
  const quote = QUOTE.exec(line);
  if (quote) {
    const gutter = [span('▎ ', GUTTER)];
    return wrapSpans(parseInline(quote[1], { italic: true, dim: true }), width, { first: gutter, continuation: gutter });
  }
  const bullet = BULLET.exec(line);
  if (bullet) {
    const indent = ' '.repeat(Math.min(bullet[1].length, 12));
    const level = Math.floor(bullet[1].length / 2);
    const task = bullet[3];
    const marker = task === undefined ? `${BULLETS[Math.min(level, BULLETS.length - 1)]} ` : task === ' ' ? '☐ ' : '☑ ';
    const body = parseInline(bullet[4], task !== undefined && task !== ' ' ? S.dim : undefined);
    return wrapSpans(body, width, {
      first: [span(indent), span(marker, task === undefined ? S.cyan : undefined)],
      continuation: [span(indent + ' '.repeat(marker.length))],
    });
  }
  const ordered = ORDERED.exec(line);
  if (ordered) {
    const indent = ' '.repeat(Math.min(ordered[1].length, 12));
    const marker = `${ordered[2]} `;
    return wrapSpans(parseInline(ordered[3]), width, {
      first: [span(indent), span(marker, S.cyan)],
      continuation: [span(indent + ' '.repeat(marker.length))],
    });
  }
  if (isTableRow(line)) return renderTable([line], width);
  const leading = /^\s*/.exec(line)![0];
  return wrapSpans(parseInline(line.slice(leading.length)), width, { first: leading ? [span(leading)] : [] });
}

/** A whole answer, laid out exactly as it would have streamed. */
export function renderMarkdown(text: string, width: number, plain = false): StyledLine[] {
  const md = new MarkdownStream(width, plain);
  return [...md.push(text), ...md.end()];
}

/** Rows of one code line, plain (while its block still streams) or highlighted spans. */
function codeRows(spans: Span[], width: number): StyledLine[] {
  return wrapSpans(spans, width, { first: [span('│ ', GUTTER)], continuation: [span('│ ', GUTTER)], hard: true });
}

/** A line as written, wrapped at the width, its indentation kept. */
function plainRows(line: string, width: number): StyledLine[] {
  const text = line.replace(/\s+$/, '');
  const leading = /^\s*/.exec(text)![0];
  return wrapSpans([span(text.slice(leading.length))], width, { first: leading ? [span(leading)] : [] });
}

function isClosingFence(line: string, marker: string): boolean {
  const closing = FENCE.exec(line.replace(/\s+$/, ''));
  return closing !== null && closing[1][0] === marker[0] && closing[1].length >= marker.length && !closing[2];
}

/**
 * Markdown arriving in pieces. `push` returns the rows of lines that just completed (they never
 * change again); `tail` renders what is still open without committing it: the unfinished line,
 * and a code block or table that is still growing (a code block is highlighted as a whole and a
 * table's columns depend on every row, so both are committed when they end). Blank lines are held
 * back until something follows them, so an answer never ends (or starts) with empty rows.
 */
export class MarkdownStream {
  private partial = '';
  private heldBlanks = 0;
  private started = false;
  private code?: { marker: string; lang: string; lines: string[]; preview: StyledLine[] };
  private table?: string[];

  /** `plain` (ui.markdown false): lines are shown as written, only wrapped. */
  constructor(
    public width: number,
    private readonly plain = false,
  ) {}

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

  /** What is still open, as it would render now. */
  tail(width = this.width): StyledLine[] {
    const out: StyledLine[] = [];
    if (this.plain) {
      if (this.partial.trim()) out.push(...plainRows(this.partial, width));
      return this.started && this.heldBlanks > 0 && out.length > 0 ? [[], ...out] : out;
    }
    if (this.code) {
      out.push(...this.code.preview);
      if (this.partial) out.push(...codeRows([span(this.partial.replace(/\s+$/, ''))], width));
      return out;
    }
    const partialIsRow = this.partial.trim() !== '' && isTableRow(this.partial);
    if (this.table) out.push(...renderTable(partialIsRow ? [...this.table, this.partial] : this.table, width));
    if (this.partial.trim() && !(this.table && partialIsRow)) {
      if (this.table && this.heldBlanks > 0) out.push([]);
      out.push(...renderMarkdownLine(this.partial, {}, width));
    }
    return this.started && this.heldBlanks > 0 && !this.table ? [[], ...out] : out;
  }

  /** Ends the stream: the unfinished line is committed as it stands, open blocks are closed. */
  end(): StyledLine[] {
    const out: StyledLine[] = [];
    if (this.partial) this.commitLine(this.partial, out);
    this.partial = '';
    this.flushTable(out);
    // A code block the model never closed still gets its bottom border.
    if (this.code) this.flushCode(out);
    return out;
  }

  get hasOutput(): boolean {
    return this.started || this.partial.trim() !== '';
  }

  private commitLine(line: string, out: StyledLine[]): void {
    if (this.plain) {
      if (!line.trim()) {
        if (this.started) this.heldBlanks = 1;
        return;
      }
      this.beginBlock(out);
      out.push(...plainRows(line, this.width));
      return;
    }
    if (this.code) {
      if (isClosingFence(line, this.code.marker)) return this.flushCode(out);
      this.code.lines.push(line);
      this.code.preview.push(...codeRows([span(line.replace(/\s+$/, ''))], this.width));
      return;
    }
    if (line.trim() && isTableRow(line)) {
      if (!this.table) this.beginBlock(out);
      (this.table ??= []).push(line);
      return;
    }
    this.flushTable(out);
    if (!line.trim()) {
      if (this.started) this.heldBlanks = 1;
      return;
    }
    this.beginBlock(out);
    const opening = FENCE.exec(line.replace(/\s+$/, ''));
    if (opening) {
      this.code = { marker: opening[1], lang: opening[2] ?? '', lines: [], preview: [] };
      out.push([span(`╭─ ${opening[2] || 'code'}`, GUTTER)]);
      return;
    }
    out.push(...renderMarkdownLine(line, {}, this.width));
  }

  /** A held blank line goes out before the next block. */
  private beginBlock(out: StyledLine[]): void {
    if (this.heldBlanks > 0) out.push([]);
    this.heldBlanks = 0;
    this.started = true;
  }

  private flushTable(out: StyledLine[]): void {
    if (!this.table) return;
    out.push(...renderTable(this.table, this.width));
    this.table = undefined;
  }

  private flushCode(out: StyledLine[]): void {
    const code = this.code!;
    this.code = undefined;
    const highlighted = highlightCode(code.lines.join('\n'), code.lang);
    if (highlighted) for (const spans of highlighted) out.push(...codeRows(spans, this.width));
    else out.push(...code.preview);
    out.push([span('╰─', GUTTER)]);
  }
}
