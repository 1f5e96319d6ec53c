/** The input box's text and cursor, edited by pure functions (cursor is a UTF-16 index). */
export interface Editor {
  readonly text: string;
  readonly cursor: number;
}

export const EMPTY_EDITOR: Editor = { text: '', cursor: 0 };

export function editorOf(text: string): Editor {
  return { text, cursor: text.length };
}

function prevIndex(text: string, index: number): number {
  if (index <= 0) return 0;
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index >= 2 ? index - 2 : index - 1;
}

function nextIndex(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff ? index + 2 : index + 1;
}

export function insert(editor: Editor, value: string): Editor {
  const { text, cursor } = editor;
  return { text: text.slice(0, cursor) + value + text.slice(cursor), cursor: cursor + value.length };
}

export function backspace(editor: Editor): Editor {
  const start = prevIndex(editor.text, editor.cursor);
  return { text: editor.text.slice(0, start) + editor.text.slice(editor.cursor), cursor: start };
}

export function deleteForward(editor: Editor): Editor {
  const end = nextIndex(editor.text, editor.cursor);
  return { text: editor.text.slice(0, editor.cursor) + editor.text.slice(end), cursor: editor.cursor };
}

export function left(editor: Editor): Editor {
  return { ...editor, cursor: prevIndex(editor.text, editor.cursor) };
}

export function right(editor: Editor): Editor {
  return { ...editor, cursor: nextIndex(editor.text, editor.cursor) };
}

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1;
}

function lineEnd(text: string, cursor: number): number {
  const end = text.indexOf('\n', cursor);
  return end === -1 ? text.length : end;
}

export function home(editor: Editor): Editor {
  return { ...editor, cursor: lineStart(editor.text, editor.cursor) };
}

export function end(editor: Editor): Editor {
  return { ...editor, cursor: lineEnd(editor.text, editor.cursor) };
}

export function wordLeft(editor: Editor): Editor {
  let index = editor.cursor;
  while (index > 0 && /\s/.test(editor.text[index - 1])) index--;
  while (index > 0 && !/\s/.test(editor.text[index - 1])) index--;
  return { ...editor, cursor: index };
}

export function wordRight(editor: Editor): Editor {
  let index = editor.cursor;
  const { text } = editor;
  while (index < text.length && /\s/.test(text[index])) index++;
  while (index < text.length && !/\s/.test(text[index])) index++;
  return { ...editor, cursor: index };
}

export function deleteWordBack(editor: Editor): Editor {
  const start = wordLeft(editor).cursor;
  return { text: editor.text.slice(0, start) + editor.text.slice(editor.cursor), cursor: start };
}

/** Ctrl+U: deletes from the start of the current line to the cursor. */
export function killToLineStart(editor: Editor): Editor {
  const start = lineStart(editor.text, editor.cursor);
  const from = start === editor.cursor && start > 0 ? start - 1 : start;
  return { text: editor.text.slice(0, from) + editor.text.slice(editor.cursor), cursor: from };
}

/** Ctrl+K: deletes from the cursor to the end of the current line. */
export function killToLineEnd(editor: Editor): Editor {
  const stop = lineEnd(editor.text, editor.cursor);
  const to = stop === editor.cursor && stop < editor.text.length ? stop + 1 : stop;
  return { text: editor.text.slice(0, editor.cursor) + editor.text.slice(to), cursor: editor.cursor };
}

/** Moves to the line above, keeping the column; undefined on the first line (history takes over). */
export function lineUp(editor: Editor): Editor | undefined {
  const start = lineStart(editor.text, editor.cursor);
  if (start === 0) return undefined;
  const column = editor.cursor - start;
  const previousStart = lineStart(editor.text, start - 1);
  return { ...editor, cursor: Math.min(previousStart + column, start - 1) };
}

/** Moves to the line below, keeping the column; undefined on the last line. */
export function lineDown(editor: Editor): Editor | undefined {
  const stop = lineEnd(editor.text, editor.cursor);
  if (stop === editor.text.length) return undefined;
  const column = editor.cursor - lineStart(editor.text, editor.cursor);
  return { ...editor, cursor: Math.min(stop + 1 + column, lineEnd(editor.text, stop + 1)) };
}

/**
 * Submitted prompts, newest last. Walking back keeps the unsent draft, so Down past the newest
 * entry gives it back.
 */
export class History {
  private readonly entries: string[];
  private index: number;
  private draft = '';

  constructor(
    entries: string[] = [],
    private readonly limit = 500,
  ) {
    this.entries = entries.slice(-limit);
    this.index = this.entries.length;
  }

  /** Every entry, newest first (Ctrl+R starts from these). */
  newestFirst(): string[] {
    return [...this.entries].reverse();
  }

  add(text: string): void {
    if (text.trim() && this.entries[this.entries.length - 1] !== text) this.entries.push(text);
    if (this.entries.length > this.limit) this.entries.shift();
    this.index = this.entries.length;
    this.draft = '';
  }

  previous(current: string): string | undefined {
    if (this.index === 0) return undefined;
    if (this.index === this.entries.length) this.draft = current;
    this.index -= 1;
    return this.entries[this.index];
  }

  next(): string | undefined {
    if (this.index >= this.entries.length) return undefined;
    this.index += 1;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }
}
