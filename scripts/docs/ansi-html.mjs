// A terminal screen as tmux captures it (`capture-pane -e -p`: text with SGR escape sequences) as an
// HTML page drawn like a terminal, for the README's screenshot of the chat (scripts/chat-screenshot.mjs).
// Only SGR sequences (ESC [ ... m) occur in a capture; anything else is dropped.

// xterm's default palette, the 16 colours of a dark theme.
const PALETTE = [
  '#1e1e1e',
  '#cd3131',
  '#0dbc79',
  '#e5e510',
  '#2472c8',
  '#bc3fbc',
  '#11a8cd',
  '#e5e5e5',
  '#666666',
  '#f14c4c',
  '#23d18b',
  '#f5f543',
  '#3b8eea',
  '#d670d6',
  '#29b8db',
  '#ffffff',
];
const FOREGROUND = '#d4d4d4';
const ESC = String.fromCharCode(27);
// An escape sequence of the capture: ESC [ parameters final-byte.
const SEQUENCE = new RegExp(`(${ESC}\\[[0-9;]*[A-Za-z])`);
const BACKGROUND = '#1e1e1e';

function color256(index) {
  if (index < 16) return PALETTE[index];
  if (index >= 232) {
    const level = 8 + (index - 232) * 10;
    return `rgb(${level},${level},${level})`;
  }
  const cube = index - 16;
  const level = (value) => (value === 0 ? 0 : 55 + value * 40);
  return `rgb(${level(Math.floor(cube / 36))},${level(Math.floor(cube / 6) % 6)},${level(cube % 6)})`;
}

const escapeHtml = (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Applies one SGR parameter list to the style. */
function applySgr(style, params) {
  const codes = params.length === 0 ? [0] : params;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) Object.assign(style, { fg: undefined, bg: undefined, bold: false, dim: false, italic: false, underline: false, inverse: false });
    else if (code === 1) style.bold = true;
    else if (code === 2) style.dim = true;
    else if (code === 3) style.italic = true;
    else if (code === 4) style.underline = true;
    else if (code === 7) style.inverse = true;
    else if (code === 22) style.bold = style.dim = false;
    else if (code === 23) style.italic = false;
    else if (code === 24) style.underline = false;
    else if (code === 27) style.inverse = false;
    else if (code >= 30 && code <= 37) style.fg = PALETTE[code - 30];
    else if (code === 39) style.fg = undefined;
    else if (code >= 40 && code <= 47) style.bg = PALETTE[code - 40];
    else if (code === 49) style.bg = undefined;
    else if (code >= 90 && code <= 97) style.fg = PALETTE[code - 90 + 8];
    else if (code >= 100 && code <= 107) style.bg = PALETTE[code - 100 + 8];
    else if (code === 38 || code === 48) {
      const target = code === 38 ? 'fg' : 'bg';
      if (codes[i + 1] === 5) {
        style[target] = color256(codes[i + 2] ?? 0);
        i += 2;
      } else if (codes[i + 1] === 2) {
        style[target] = `rgb(${codes[i + 2] ?? 0},${codes[i + 3] ?? 0},${codes[i + 4] ?? 0})`;
        i += 4;
      }
    }
  }
}

function css(style) {
  let fg = style.fg ?? FOREGROUND;
  let bg = style.bg;
  if (style.inverse) [fg, bg] = [bg ?? BACKGROUND, fg];
  return [
    `color:${fg}`,
    bg ? `background:${bg}` : '',
    style.bold ? 'font-weight:bold' : '',
    style.dim ? 'opacity:0.6' : '',
    style.italic ? 'font-style:italic' : '',
    style.underline ? 'text-decoration:underline' : '',
  ]
    .filter(Boolean)
    .join(';');
}

/** The captured screen as a page: one `<pre>` of `columns` cells, in a window frame with a title. */
export function ansiToHtml(capture, { columns, title }) {
  const style = {};
  let body = '';
  for (const part of capture.replace(/\n+$/, '').split(SEQUENCE)) {
    if (part.startsWith(`${ESC}[`)) {
      if (part.endsWith('m'))
        applySgr(
          style,
          part
            .slice(2, -1)
            .split(';')
            .filter((value) => value !== '')
            .map(Number),
        );
      continue;
    }
    if (part) body += `<span style="${css(style)}">${escapeHtml(part)}</span>`;
  }
  return `<!doctype html>
<html><head><meta charset="utf-8"><style>
  html, body { margin: 0; background: transparent; }
  .window { display: inline-block; margin: 0; border-radius: 10px; overflow: hidden; background: ${BACKGROUND};
    box-shadow: 0 10px 30px rgba(0,0,0,0.5); border: 1px solid #333; }
  .bar { height: 30px; background: #2d2d2d; color: #aaa; font: 13px sans-serif; line-height: 30px; text-align: center; position: relative; }
  .dots { position: absolute; left: 12px; top: 9px; }
  .dots span { display: inline-block; width: 12px; height: 12px; border-radius: 6px; margin-right: 6px; }
  pre { margin: 0; padding: 12px 14px; font: 15px/1.2 'DejaVu Sans Mono', 'Liberation Mono', monospace; color: ${FOREGROUND};
    width: ${columns}ch; white-space: pre; }
</style></head><body><div class="window">
<div class="bar"><div class="dots"><span style="background:#ff5f56"></span><span style="background:#ffbd2e"></span><span style="background:#27c93f"></span></div>${escapeHtml(title)}</div>
<pre>${body}</pre></div></body></html>
`;
}
