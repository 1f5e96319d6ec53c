import { span, type Color, type Span, type SpanStyle, type StyledLine } from './styled.js';

// A status line command's output may colour itself with SGR sequences (`tput setaf 4`, `\e[1;32m`),
// as Claude Code's do. Those become our own spans; every other escape sequence and control
// character is dropped, so the command can never move the cursor or retitle the terminal.

const BASIC: Color[] = ['gray', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
const SEQUENCE = /\x1b\[([0-9;:]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g;
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f\u0080-\u009f]/g;

function applySgr(style: SpanStyle, params: string): SpanStyle {
  const codes = params === '' ? [0] : params.split(/[;:]/).map(Number);
  let next: SpanStyle = { ...style };
  for (let at = 0; at < codes.length; at++) {
    const code = codes[at];
    if (code === 0) next = {};
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 9) next.strikethrough = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code === 39) delete next.color;
    else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) next.color = BASIC[code % 10]!;
    // 256-colour and true-colour forms: their parameters are skipped, the text keeps its colour.
    else if (code === 38 || code === 48) at += codes[at + 1] === 5 ? 2 : codes[at + 1] === 2 ? 4 : 1;
  }
  return next;
}

/** One line of a program's output as styled spans: SGR colours kept, anything else that is not text dropped. */
export function ansiLine(text: string): StyledLine {
  const out: Span[] = [];
  let style: SpanStyle = {};
  let last = 0;
  const push = (piece: string) => {
    const clean = piece.replace(/\t/g, ' ').replace(CONTROL, '');
    if (clean) out.push(span(clean, Object.keys(style).length ? style : undefined));
  };
  for (const match of text.matchAll(SEQUENCE)) {
    push(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm') style = applySgr(style, match[1] ?? '');
  }
  push(text.slice(last));
  return out;
}
