/**
 * Everything the chat UI prints is a list of styled lines, wrapped by us to the terminal width.
 * Owning the wrapping is what lets the live area know its exact height, so it can be kept shorter
 * than the terminal (a taller live area makes Ink clear and redraw the whole screen: flicker).
 */

export type Color = 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan' | 'gray' | 'white';

export interface SpanStyle {
  color?: Color;
  bold?: boolean;
  italic?: boolean;
  dim?: boolean;
  underline?: boolean;
  inverse?: boolean;
  strikethrough?: boolean;
}

export interface Span {
  text: string;
  style?: SpanStyle;
}

/** One terminal row. */
export type StyledLine = Span[];

export const S = {
  dim: { dim: true },
  bold: { bold: true },
  red: { color: 'red' },
  green: { color: 'green' },
  yellow: { color: 'yellow' },
  cyan: { color: 'cyan' },
  magenta: { color: 'magenta' },
  blue: { color: 'blue' },
  gray: { color: 'gray' },
  inverse: { inverse: true },
} as const satisfies Record<string, SpanStyle>;

export function span(text: string, style?: SpanStyle): Span {
  return style ? { text, style } : { text };
}

export function lineText(line: StyledLine): string {
  let out = '';
  for (const part of line) out += part.text;
  return out;
}

// Zero-width: combining marks, variation selectors, zero-width joiners and controls.
const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200b-\u200f\u2060\ufe00-\ufe0f]/u;
const EMOJI = /\p{Extended_Pictographic}/u;

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** Columns one character occupies. */
function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (code < 0x300) return 1;
  if (ZERO_WIDTH.test(char)) return 0;
  if (isWide(code) || (code >= 0x1f000 && EMOJI.test(char))) return 2;
  return 1;
}

/** Columns a string occupies; ASCII takes the fast path. */
export function displayWidth(text: string): number {
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

export function lineWidth(line: StyledLine): number {
  let width = 0;
  for (const part of line) width += displayWidth(part.text);
  return width;
}

/** Tabs and stray control characters would break the column arithmetic. */
function sanitize(text: string): string {
  return text.replace(/\t/g, '    ').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

class LineBuilder {
  readonly lines: StyledLine[] = [];
  private current: StyledLine;
  private used: number;
  private readonly prefixWidth: number;

  constructor(
    private readonly width: number,
    first: StyledLine,
    private readonly continuation: StyledLine,
  ) {
    this.current = first.map((part) => ({ ...part }));
    this.used = lineWidth(first);
    this.prefixWidth = lineWidth(continuation);
  }

  get room(): number {
    return this.width - this.used;
  }

  get atContinuationStart(): boolean {
    return this.lines.length > 0 && this.used === this.prefixWidth;
  }

  get capacity(): number {
    return Math.max(1, this.width - this.prefixWidth);
  }

  push(text: string, style: SpanStyle | undefined, width: number): void {
    if (!text) return;
    const last = this.current[this.current.length - 1];
    if (last && last.style === style) last.text += text;
    else this.current.push(span(text, style));
    this.used += width;
  }

  /** Pushes characters one by one, breaking lines wherever the row is full. */
  pushHard(text: string, style: SpanStyle | undefined): void {
    let chunk = '';
    let chunkWidth = 0;
    for (const char of text) {
      const w = charWidth(char);
      if (this.used + chunkWidth + w > this.width && this.used + chunkWidth > this.prefixWidth) {
        this.push(chunk, style, chunkWidth);
        chunk = '';
        chunkWidth = 0;
        this.newLine();
      }
      chunk += char;
      chunkWidth += w;
    }
    this.push(chunk, style, chunkWidth);
  }

  /** `trim` drops the spaces a soft wrap leaves at the end of the row. */
  newLine(trim = false): void {
    if (trim) {
      const last = this.current[this.current.length - 1];
      if (last && this.current.length > 0) {
        const trimmed = last.text.replace(/ +$/, '');
        this.used -= last.text.length - trimmed.length;
        last.text = trimmed;
      }
    }
    this.lines.push(this.current);
    this.current = this.continuation.map((part) => ({ ...part }));
    this.used = this.prefixWidth;
  }

  finish(): StyledLine[] {
    this.lines.push(this.current);
    return this.lines;
  }
}

export interface WrapOptions {
  /** Prefix of the first row (e.g. a list bullet). */
  first?: StyledLine;
  /** Prefix of every following row (e.g. indentation under the bullet). */
  continuation?: StyledLine;
  /** Break anywhere and keep every space (code, diffs, the input box). */
  hard?: boolean;
}

/** Wraps one logical line of styled text into terminal rows of at most `width` columns. */
export function wrapSpans(spans: readonly Span[], width: number, options: WrapOptions = {}): StyledLine[] {
  const builder = new LineBuilder(Math.max(1, width), options.first ?? [], options.continuation ?? []);
  for (const part of spans) {
    const text = sanitize(part.text);
    if (options.hard) {
      builder.pushHard(text, part.style);
      continue;
    }
    for (const token of text.split(/( +)/)) {
      if (!token) continue;
      const w = displayWidth(token);
      if (token[0] === ' ') {
        if (builder.atContinuationStart) continue;
        if (w <= builder.room) builder.push(token, part.style, w);
        else builder.newLine(true);
        continue;
      }
      if (w <= builder.room) builder.push(token, part.style, w);
      else if (w <= builder.capacity) {
        builder.newLine(true);
        builder.push(token, part.style, w);
      } else builder.pushHard(token, part.style);
    }
  }
  return builder.finish();
}

/** Wraps plain text (which may contain newlines) in one style. */
export function wrapText(text: string, width: number, style?: SpanStyle, options: WrapOptions = {}): StyledLine[] {
  const out: StyledLine[] = [];
  for (const line of text.split('\n')) out.push(...wrapSpans([span(line, style)], width, options));
  return out;
}

/** Cuts a line to `width` columns, ending with an ellipsis when something was cut. */
export function truncateLine(line: StyledLine, width: number): StyledLine {
  if (lineWidth(line) <= width) return line;
  const out: StyledLine = [];
  let used = 0;
  for (const part of line) {
    let text = '';
    for (const char of part.text) {
      const w = charWidth(char);
      if (used + w > width - 1) {
        if (text) out.push(span(text, part.style));
        out.push(span('…', part.style));
        return out;
      }
      text += char;
      used += w;
    }
    if (text) out.push(span(text, part.style));
  }
  return out;
}
