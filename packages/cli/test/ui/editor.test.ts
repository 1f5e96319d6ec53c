import { describe, expect, test } from 'vitest';
import * as ed from '../../src/ui/editor.js';

describe('editing', () => {
  test('insert, move and delete around the cursor', () => {
    let editor = ed.editorOf('helo');
    editor = ed.left(editor);
    editor = ed.insert(editor, 'l');
    expect(editor).toEqual({ text: 'hello', cursor: 4 });
    expect(ed.backspace(ed.home(editor))).toEqual({ text: 'hello', cursor: 0 });
    expect(ed.deleteWordBack(ed.editorOf('git commit -m'))).toEqual({ text: 'git commit ', cursor: 11 });
  });

  test('an emoji is one cursor step', () => {
    const editor = ed.editorOf('a😀');
    expect(ed.left(editor).cursor).toBe(1);
    expect(ed.backspace(editor).text).toBe('a');
  });

  test('up and down move between lines of a multi-line input, keeping the column', () => {
    const editor = { text: 'first line\nsecond', cursor: 'first line\nsec'.length };
    const up = ed.lineUp(editor)!;
    expect(up.cursor).toBe(3);
    expect(ed.lineUp(up)).toBeUndefined();
    expect(ed.lineDown(up)!.cursor).toBe('first line\nsec'.length);
    expect(ed.lineDown(editor)).toBeUndefined();
  });

  test('Ctrl+U and Ctrl+K cut to the start and end of the line', () => {
    const editor = { text: 'one two', cursor: 4 };
    expect(ed.killToLineStart(editor)).toEqual({ text: 'two', cursor: 0 });
    expect(ed.killToLineEnd(editor)).toEqual({ text: 'one ', cursor: 4 });
  });
});

describe('history', () => {
  test('walks back through prompts and returns the unsent draft at the end', () => {
    const history = new ed.History(['first']);
    history.add('second');
    history.add('second');
    expect(history.previous('draft')).toBe('second');
    expect(history.previous('second')).toBe('first');
    expect(history.previous('first')).toBeUndefined();
    expect(history.next()).toBe('second');
    expect(history.next()).toBe('draft');
    expect(history.next()).toBeUndefined();
  });
});
