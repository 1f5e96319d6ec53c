import { describe, expect, test } from 'vitest';
import type { Editor } from '../../src/ui/editor.js';
import type { KeyEvent } from '../../src/ui/keys.js';
import { VimInput, wordBack, wordEnd, wordForward } from '../../src/ui/vim.js';

const ESC: KeyEvent = { type: 'key', name: 'escape' };
const text = (value: string): KeyEvent => ({ type: 'text', text: value, paste: false });

/** Runs keys through vim mode the way the input box does: a key vim leaves alone is typed as text or ignored. */
function run(start: Editor, keys: KeyEvent[], vim = new VimInput(), recall = (editor: Editor) => editor) {
  let editor = start;
  for (const key of keys) {
    const next = vim.handleKey(key, editor, recall);
    if (next) editor = next;
    else if (key.type === 'text')
      editor = { text: editor.text.slice(0, editor.cursor) + key.text + editor.text.slice(editor.cursor), cursor: editor.cursor + key.text.length };
  }
  return { editor, vim, view: editor.text.slice(0, editor.cursor) + '|' + editor.text.slice(editor.cursor) };
}

const at = (value: string): Editor => ({ text: value.replace('|', ''), cursor: value.indexOf('|') });

describe('vim word motions', () => {
  test('w, e and b treat words and punctuation runs as vim does', () => {
    const line = 'foo.bar  baz_1 (x)';
    expect(wordForward(line, 0)).toBe(3);
    expect(wordForward(line, 3)).toBe(4);
    expect(wordForward(line, 4)).toBe(9);
    expect(wordEnd(line, 0)).toBe(2);
    expect(wordEnd(line, 2)).toBe(3);
    expect(wordEnd(line, 9)).toBe(13);
    expect(wordBack(line, 9)).toBe(4);
    expect(wordBack(line, 4)).toBe(3);
    expect(wordBack(line, 0)).toBe(0);
  });
});

describe('vim mode of the input', () => {
  test('starts in insert mode; Esc enters normal mode on the last typed character', () => {
    const { vim, view } = run(at('|'), [text('hello'), ESC]);
    expect(vim.mode).toBe('normal');
    expect(view).toBe('hell|o');
  });

  test('h l 0 $ w b e move within the text, never past the last character', () => {
    const vim = new VimInput();
    const start = run(at('one two three|'), [ESC], vim).editor;
    expect(run(start, [text('0')], vim).view).toBe('|one two three');
    expect(run(start, [text('0w')], vim).view).toBe('one |two three');
    expect(run(start, [text('0we')], vim).view).toBe('one tw|o three');
    expect(run(start, [text('b')], vim).view).toBe('one two |three');
    expect(run(start, [text('0$')], vim).view).toBe('one two thre|e');
    expect(run(start, [text('lllll')], vim).view).toBe('one two thre|e');
    expect(run(start, [text('0hhl')], vim).view).toBe('o|ne two three');
  });

  test('x deletes the character under the cursor; dd the line; u undoes each', () => {
    const vim = new VimInput();
    const start = run(at('first line\nsecond line|'), [ESC], vim).editor;
    const x = run(start, [text('0x')], vim);
    expect(x.view).toBe('first line\n|econd line');
    const dd = run(x.editor, [text('dd')], vim);
    expect(dd.view).toBe('|first line');
    expect(run(dd.editor, [text('u')], vim).view).toBe('first line\n|econd line');
    expect(run(run(dd.editor, [text('u')], vim).editor, [text('u')], vim).editor.text).toBe('first line\nsecond line');
    // dd on a first line keeps the lines after it, the cursor on the next one.
    expect(run(at('a|bc\ndef'), [ESC, text('dd')]).view).toBe('|def');
    expect(run(at('only|'), [ESC, text('dd')]).view).toBe('|');
  });

  test('cw changes to the end of the word and stays in insert mode; u undoes the whole change', () => {
    const vim = new VimInput();
    const start = run(at('fix the parser bug|'), [ESC, text('0w')], vim).editor;
    const changed = run(start, [text('cwa'), text('n old'), ESC], vim);
    expect(changed.editor.text).toBe('fix an old parser bug');
    expect(vim.mode).toBe('normal');
    expect(run(changed.editor, [text('u')], vim).editor.text).toBe('fix the parser bug');
  });

  test('dw, d$ (D), d0, c$ and cc', () => {
    expect(run(at('alpha beta gam|ma'), [ESC, text('0dw')]).view).toBe('|beta gamma');
    expect(run(at('alpha beta gam|ma'), [ESC, text('0wD')]).view).toBe('alpha| ');
    expect(run(at('alpha beta gam|ma'), [ESC, text('0wwd0')]).view).toBe('|gamma');
    const cc = run(at('line one\nline two|'), [ESC, text('ccnew two'), ESC]);
    expect(cc.editor.text).toBe('line one\nnew two');
    expect(run(at('keep this|'), [ESC, text('0wC'), text('that')]).editor.text).toBe('keep that');
  });

  test('i a I A o O enter insert mode at the right place; an insert that changed nothing is no undo step', () => {
    expect(run(at('ab|c'), [ESC, text('iX')]).editor.text).toBe('aXbc');
    expect(run(at('ab|c'), [ESC, text('aX')]).editor.text).toBe('abXc');
    expect(run(at('  ab|c'), [ESC, text('IX')]).editor.text).toBe('  Xabc');
    expect(run(at('a|bc'), [ESC, text('0AX')]).editor.text).toBe('abcX');
    expect(run(at('one|\ntwo'), [ESC, text('oX')]).editor.text).toBe('one\nX\ntwo');
    expect(run(at('one\ntw|o'), [ESC, text('OX')]).editor.text).toBe('one\nX\ntwo');
    const vim = new VimInput();
    const edited = run(at('abc|'), [ESC, text('x'), text('i'), ESC], vim).editor;
    expect(edited.text).toBe('ab');
    expect(run(edited, [text('u')], vim).editor.text).toBe('abc');
  });

  test("j and k ask the input box (lines, then history); other keys and pastes are not vim's", () => {
    const vim = new VimInput();
    const start = run(at('draft|'), [ESC], vim).editor;
    const recalled = run(start, [text('k')], vim, (_editor) => ({ text: 'an older prompt', cursor: 15 }));
    expect(recalled.view).toBe('an older promp|t');
    expect(vim.handleKey({ type: 'key', name: 'enter' }, start, (editor) => editor)).toBeUndefined();
    expect(vim.handleKey({ type: 'text', text: 'dd', paste: true }, start, (editor) => editor)).toBeUndefined();
    // Esc in normal mode is the chat's again (interrupt, Esc Esc to rewind).
    expect(vim.handleKey(ESC, start, (editor) => editor)).toBeUndefined();
  });
});

describe('vim counts', () => {
  test('a count repeats motions, x, dd and d with a motion, as one undo step', () => {
    const line = 'one two three four five|';
    expect(run(at(line), [ESC, text('03w')]).view).toBe('one two three |four five');
    expect(run(at(line), [ESC, text('2b')]).view).toBe('one two three |four five');
    expect(run(at(line), [ESC, text('03l')]).view).toBe('one| two three four five');
    expect(run(at(line), [ESC, text('0d2w')]).view).toBe('|three four five');
    expect(run(at(line), [ESC, text('02dw')]).view).toBe('|three four five');
    expect(run(at(line), [ESC, text('02d2w')]).view).toBe('|five');
    expect(run(at(line), [ESC, text('03x')]).view).toBe('| two three four five');
    const vim = new VimInput();
    const lines = run(at('a\nb\nc\nd|'), [ESC, text('gg')], vim).editor;
    const deleted = run({ text: lines.text, cursor: 0 }, [text('2dd')], vim);
    expect(deleted.view).toBe('|c\nd');
    expect(run(deleted.editor, [text('u')], vim).editor.text).toBe('a\nb\nc\nd');
    // 10 is a count, 0 alone a motion; Esc drops a half-typed count.
    expect(run(at('x'.repeat(12) + '|'), [ESC, text('010l')]).editor.cursor).toBe(10);
    expect(run(at('abc|'), [ESC, text('2'), ESC, text('x')]).editor.text).toBe('ab');
  });
});
