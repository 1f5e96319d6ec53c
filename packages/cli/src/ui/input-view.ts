import type { Editor } from './editor.js';
import { S, span, truncateLine, wrapSpans, type SpanStyle, type StyledLine } from './styled.js';

const PROMPT: SpanStyle = { color: 'cyan', bold: true };
const CURSOR: SpanStyle = { inverse: true };

/** What the empty input box says (the first frame draws it too, before the chat loads). */
export const INPUT_PLACEHOLDER = 'Ask anything · / for commands · @ for files · ? for keys';

export interface InputViewOptions {
  width: number;
  maxRows: number;
  placeholder?: string;
  prompt?: string;
}

/**
 * The input box as rows: `› ` before the first line, the cursor as an inverse cell, long input
 * scrolled so the cursor's row stays visible (a pasted 500-line file must not push the screen).
 */
export function renderInput(editor: Editor, options: InputViewOptions): StyledLine[] {
  const { width } = options;
  const prompt = options.prompt ?? '› ';
  const indent = ' '.repeat(prompt.length);
  if (!editor.text && options.placeholder) {
    return [truncateLine([span(prompt, PROMPT), span(' ', CURSOR), span(` ${options.placeholder}`, S.dim)], width)];
  }
  const rows: StyledLine[] = [];
  let cursorRow = 0;
  let offset = 0;
  for (const [index, line] of editor.text.split('\n').entries()) {
    const lineEnd = offset + line.length;
    const parts = [span(line)];
    if (editor.cursor >= offset && editor.cursor <= lineEnd) {
      const at = editor.cursor - offset;
      const code = line.codePointAt(at);
      const char = code === undefined ? ' ' : String.fromCodePoint(code);
      parts.splice(0, 1, span(line.slice(0, at)), span(char, CURSOR), span(line.slice(at + (code === undefined ? 0 : char.length))));
    }
    const wrapped = wrapSpans(parts, width, { first: [span(index === 0 ? prompt : indent, PROMPT)], continuation: [span(indent)], hard: true });
    if (editor.cursor >= offset && editor.cursor <= lineEnd) {
      const within = wrapped.findIndex((row) => row.some((part) => part.style === CURSOR));
      cursorRow = rows.length + Math.max(0, within);
    }
    rows.push(...wrapped);
    offset = lineEnd + 1;
  }
  const max = Math.max(1, options.maxRows);
  if (rows.length <= max) return rows;
  // Scroll: keep the cursor row in view and say how much is hidden.
  const visible = Math.max(1, max - 1);
  const first = Math.min(Math.max(0, cursorRow - visible + 1), rows.length - visible);
  const hiddenAbove = first;
  const hiddenBelow = rows.length - first - visible;
  const note = [hiddenAbove ? `↑ ${hiddenAbove} more` : '', hiddenBelow ? `↓ ${hiddenBelow} more` : ''].filter(Boolean).join(' · ');
  return [...rows.slice(first, first + visible), [span(`${indent}${note} lines`, S.dim)]];
}
