import type { Editor } from './editor.js';
import type { KeyEvent } from './keys.js';

export type VimMode = 'insert' | 'normal';

/** j / k at the first or last line: the input box's history (as Up/Down), given back as an editor. */
export type Recall = (editor: Editor, direction: -1 | 1) => Editor;

type Operator = 'd' | 'c';

const UNDO_LIMIT = 200;

// Vim's word classes: blanks, keyword characters, and other punctuation runs.
function kind(char: string | undefined): 0 | 1 | 2 {
  if (char === undefined || /\s/.test(char)) return 0;
  return /[\p{L}\p{N}_]/u.test(char) ? 1 : 2;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf('\n', at);
  return end === -1 ? text.length : end;
}

/** Normal mode's cursor sits on a character: the last one of a line at most (the start of an empty one). */
function onChar(text: string, at: number): number {
  const start = lineStart(text, Math.min(at, text.length));
  const end = lineEnd(text, start);
  return Math.max(start, Math.min(at, end - 1));
}

/** `w`: the start of the next word (or punctuation run). */
export function wordForward(text: string, at: number): number {
  let index = at;
  const start = kind(text[index]);
  if (start !== 0) while (index < text.length && kind(text[index]) === start) index++;
  while (index < text.length && kind(text[index]) === 0) index++;
  return index;
}

/** `e`: the last character of this word, or of the next one when already there. */
export function wordEnd(text: string, at: number): number {
  let index = at + 1;
  while (index < text.length && kind(text[index]) === 0) index++;
  if (index >= text.length) return Math.max(0, text.length - 1);
  const run = kind(text[index]);
  while (index + 1 < text.length && kind(text[index + 1]) === run) index++;
  return index;
}

/** `b`: the start of this word, or of the previous one when already there. */
export function wordBack(text: string, at: number): number {
  let index = at;
  if (index === 0) return 0;
  index--;
  while (index > 0 && kind(text[index]) === 0) index--;
  const run = kind(text[index]);
  while (index > 0 && kind(text[index - 1]) === run) index--;
  return index;
}

/**
 * Vim key bindings for the input box (`editorMode: "vim"`, `/vim`): insert mode types as usual and
 * Esc enters normal mode, where h j k l w b e 0 $ move, x, dd, D, d{motion}, cw, cc, C,
 * c{motion} edit, i a I A o O go back to insert, and u undoes (an insert session is one change).
 * Keys it does not take (Enter, arrows, Ctrl keys, Esc in normal mode) go to the input box as usual.
 */
export class VimInput {
  mode: VimMode = 'insert';
  private pending?: Operator;
  /** Digits typed before a command or motion (`3w`, `2dd`, `d3w`). */
  private count = '';
  /** The count typed before a pending operator. */
  private operatorCount = 1;
  private readonly undoStack: Editor[] = [];
  /** Insert mode began with an undo step (i, a, cw...); an insert that changed nothing drops it again. */
  private insertRecorded = false;

  /** A fresh prompt starts in insert mode, as after sending one. */
  reset(): void {
    this.mode = 'insert';
    this.pending = undefined;
    this.count = '';
    this.operatorCount = 1;
    this.insertRecorded = false;
  }

  /** The editor after the key, or undefined when the key is not vim's to handle. */
  handleKey(event: KeyEvent, editor: Editor, recall: Recall): Editor | undefined {
    if (this.mode === 'insert') {
      if (event.type === 'key' && event.name === 'escape') return this.toNormal(editor);
      return undefined;
    }
    if (event.type === 'key') {
      if (event.name === 'escape' && (this.pending || this.count)) {
        this.pending = undefined;
        this.count = '';
        this.operatorCount = 1;
        return editor;
      }
      this.pending = undefined;
      this.count = '';
      this.operatorCount = 1;
      return undefined;
    }
    // A paste is text to insert, never commands.
    if (event.paste) return undefined;
    let current = editor;
    const chars = [...event.text];
    for (let index = 0; index < chars.length; index++) {
      if (this.inserting()) {
        // Typing that arrived with the command (`cwnew`): the rest is inserted.
        const rest = chars.slice(index).join('');
        return { text: current.text.slice(0, current.cursor) + rest + current.text.slice(current.cursor), cursor: current.cursor + rest.length };
      }
      current = this.counted(chars[index], current, recall);
    }
    return current;
  }

  /**
   * A count repeats what follows: a motion, `x`, `dd` or `d` with a motion (`2dw`, `d2w`, `2d3w`), as
   * one undo step. `c` and the insert commands take no count here (vim's `3ix` repeats the insert).
   */
  private counted(char: string, editor: Editor, recall: Recall): Editor {
    if (/[1-9]/.test(char) || (char === '0' && this.count)) {
      this.count += char;
      return editor;
    }
    const typed = Math.min(Number(this.count || '1'), 1000);
    this.count = '';
    if (!this.pending && (char === 'd' || char === 'c')) {
      // The count before an operator multiplies the one after it.
      this.operatorCount = typed;
      return this.normalKey(char, editor, recall);
    }
    const operator = this.pending;
    const times = Math.min(typed * (operator ? this.operatorCount : 1), 1000);
    this.operatorCount = 1;
    const repeatable = operator === 'd' || (!operator && 'hjklwbex'.includes(char));
    if (times === 1 || !repeatable) return this.normalKey(char, editor, recall);
    const depth = this.undoStack.length;
    let current = editor;
    for (let round = 0; round < times; round++) {
      this.pending = operator;
      current = this.normalKey(char, current, recall);
    }
    // One undo step for the whole repetition: keep the state from before the first.
    this.undoStack.splice(depth + 1);
    return current;
  }

  // A method, not `this.mode` inline: a key handled in the loop may switch the mode.
  private inserting(): boolean {
    return this.mode === 'insert';
  }

  private toNormal(editor: Editor): Editor {
    this.mode = 'normal';
    if (this.insertRecorded && this.undoStack.at(-1)?.text === editor.text) this.undoStack.pop();
    this.insertRecorded = false;
    // Leaving insert mode steps back onto the last character typed, as vim does.
    const back = editor.cursor > lineStart(editor.text, editor.cursor) ? editor.cursor - 1 : editor.cursor;
    return { ...editor, cursor: onChar(editor.text, back) };
  }

  private record(before: Editor): void {
    this.undoStack.push(before);
    if (this.undoStack.length > UNDO_LIMIT) this.undoStack.shift();
  }

  private toInsert(before: Editor, editor: Editor): Editor {
    this.record(before);
    this.insertRecorded = true;
    this.mode = 'insert';
    return editor;
  }

  private change(before: Editor, text: string, cursor: number): Editor {
    this.record(before);
    return { text, cursor: onChar(text, cursor) };
  }

  private normalKey(char: string, editor: Editor, recall: Recall): Editor {
    const { text, cursor } = editor;
    if (this.pending) {
      const operator = this.pending;
      this.pending = undefined;
      return this.operate(operator, char, editor);
    }
    const start = lineStart(text, cursor);
    const end = lineEnd(text, cursor);
    const move = (to: number): Editor => ({ text, cursor: onChar(text, to) });
    switch (char) {
      case 'h':
        return move(Math.max(start, cursor - 1));
      case 'l':
        return move(Math.min(end - 1, cursor + 1));
      case '0':
        return move(start);
      case '$':
        return move(end - 1);
      case 'w':
        return move(Math.min(wordForward(text, cursor), Math.max(0, text.length - 1)));
      case 'e':
        return move(wordEnd(text, cursor));
      case 'b':
        return move(wordBack(text, cursor));
      case 'j':
      case 'k': {
        const next = recall(editor, char === 'k' ? -1 : 1);
        return { text: next.text, cursor: onChar(next.text, next.cursor) };
      }
      case 'x':
        return cursor < end ? this.change(editor, text.slice(0, cursor) + text.slice(cursor + 1), cursor) : editor;
      case 'd':
      case 'c':
        this.pending = char;
        return editor;
      case 'D':
        return this.operate('d', '$', editor);
      case 'C':
        return this.operate('c', '$', editor);
      case 'i':
        return this.toInsert(editor, editor);
      case 'a':
        return this.toInsert(editor, { text, cursor: Math.min(end, cursor + 1) });
      case 'I':
        return this.toInsert(editor, { text, cursor: start + (text.slice(start, end).length - text.slice(start, end).trimStart().length) });
      case 'A':
        return this.toInsert(editor, { text, cursor: end });
      case 'o':
        return this.toInsert(editor, { text: `${text.slice(0, end)}\n${text.slice(end)}`, cursor: end + 1 });
      case 'O':
        return this.toInsert(editor, { text: `${text.slice(0, start)}\n${text.slice(start)}`, cursor: start });
      case 'u':
        return this.undoStack.pop() ?? editor;
      default:
        return editor;
    }
  }

  /** `d` or `c` with a motion (or doubled: the whole line). */
  private operate(operator: Operator, motion: string, editor: Editor): Editor {
    const { text, cursor } = editor;
    const start = lineStart(text, cursor);
    const end = lineEnd(text, cursor);
    if (motion === operator) {
      if (operator === 'c') return this.toInsert(editor, { text: text.slice(0, start) + text.slice(end), cursor: start });
      // dd: the line and one line break go; the cursor lands on the line that takes its place.
      const [from, to] = end < text.length ? [start, end + 1] : start > 0 ? [start - 1, end] : [0, text.length];
      const rest = text.slice(0, from) + text.slice(to);
      return this.change(editor, rest, Math.min(from === start ? start : lineStart(rest, from), rest.length));
    }
    const range = this.motionRange(operator, motion, text, cursor, start, end);
    if (!range) return editor;
    const [from, to] = range;
    const rest = text.slice(0, from) + text.slice(to);
    if (operator === 'c') return this.toInsert(editor, { text: rest, cursor: from });
    return this.change(editor, rest, from);
  }

  private motionRange(operator: Operator, motion: string, text: string, cursor: number, start: number, end: number): [number, number] | undefined {
    switch (motion) {
      case 'w':
        // cw on a word changes to its end, like ce (vim's own exception); dw stops at the line's end.
        if (operator === 'c' && kind(text[cursor]) !== 0) return [cursor, runEnd(text, cursor)];
        return [cursor, Math.min(wordForward(text, cursor), end)];
      case 'e':
        return [cursor, Math.min(wordEnd(text, cursor) + 1, text.length)];
      case 'b':
        return [wordBack(text, cursor), cursor];
      case '0':
        return [start, cursor];
      case '$':
        return [cursor, end];
      case 'h':
        return cursor > start ? [cursor - 1, cursor] : undefined;
      case 'l':
        return cursor < end ? [cursor, cursor + 1] : undefined;
      default:
        return undefined;
    }
  }
}

/** Just past the run of same-class characters the cursor is in. */
function runEnd(text: string, at: number): number {
  const run = kind(text[at]);
  let index = at;
  while (index < text.length && kind(text[index]) === run) index++;
  return index;
}
