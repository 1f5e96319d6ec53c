import { afterEach, describe, expect, test } from 'vitest';
import { KEY, closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

const CTRL_G = '\x07';
const CTRL_X = '\x18';
const CTRL_Z = '\x1a';

const inputLine = (frame: string) =>
  frame
    .split('\n')
    .findLast((row) => row.startsWith('› '))
    ?.trimEnd() ?? '';
const statusRow = (frame: string) => frame.split('\n').at(-1) ?? '';

describe('the editor keys without a terminal', () => {
  test('Ctrl+G and Ctrl+X Ctrl+E ask for the editor; with no terminal to hand over the draft stays and a note says why', async () => {
    const { chat } = startFakeChat({ turns: [] });
    await chat.type('my draft');
    await chat.press(CTRL_G);
    await chat.waitForText('Ctrl+G needs a terminal');
    expect(inputLine(chat.frame())).toBe('› my draft');
    await chat.press(KEY.ctrlA, CTRL_X, KEY.ctrlE);
    await chat.waitFor((frame) => frame.split('Ctrl+G needs a terminal').length === 3, 'the second note');
    // Ctrl+E alone still goes to the end of the line; Ctrl+Z without a terminal does nothing.
    await chat.press(KEY.ctrlA, KEY.ctrlE, CTRL_Z);
    await chat.type('!');
    expect(inputLine(chat.frame())).toBe('› my draft!');
  });
});

describe('undo and yank in the input box (Claude Code and readline keys)', () => {
  const CTRL_UNDERSCORE = '\x1f';
  const CTRL_Y = '\x19';
  const CTRL_W = '\x17';
  const CTRL_K = '\x0b';

  test('Ctrl+_ takes back the last edits, a word of typing at a time, and brings back a prompt Ctrl+C cleared', async () => {
    const { chat } = startFakeChat({ turns: [] });
    await chat.typeKeys('fix the parser');
    await chat.press(CTRL_UNDERSCORE);
    expect(inputLine(chat.frame())).toBe('› fix the');
    await chat.press(CTRL_UNDERSCORE);
    expect(inputLine(chat.frame())).toBe('› fix');
    await chat.typeKeys('the lexer');
    await chat.press(KEY.ctrlC);
    await chat.waitFor((frame) => inputLine(frame).includes('Ask anything'), 'the cleared input');
    await chat.press(CTRL_UNDERSCORE);
    expect(inputLine(chat.frame())).toBe('› fix the lexer');
    // A paste is one step.
    await chat.press(KEY.pasteStart);
    await chat.type(' and tokens');
    await chat.press(KEY.pasteEnd, CTRL_UNDERSCORE);
    expect(inputLine(chat.frame())).toBe('› fix the lexer');
  });

  test('typing that arrives in one read (a fast typist, a slow link) still undoes a word at a time', async () => {
    const { chat } = startFakeChat({ turns: [] });
    await chat.type('run the slow');
    await chat.type(' tests');
    await chat.press(CTRL_UNDERSCORE);
    expect(inputLine(chat.frame())).toBe('› run the slow');
    await chat.press(CTRL_UNDERSCORE);
    expect(inputLine(chat.frame())).toBe('› run the');
  });

  test('Ctrl+Y puts back what Ctrl+W, Ctrl+U or Ctrl+K cut; cuts in a row join', async () => {
    const { chat } = startFakeChat({ turns: [] });
    await chat.type('git commit --amend now');
    await chat.press(CTRL_W, CTRL_W);
    expect(inputLine(chat.frame())).toBe('› git commit');
    await chat.press(KEY.ctrlA);
    await chat.press(CTRL_Y);
    expect(inputLine(chat.frame())).toBe('› --amend nowgit commit');
    await chat.press(KEY.ctrlA, CTRL_K);
    expect(chat.frame()).not.toContain('nowgit');
    await chat.press(CTRL_Y);
    expect(inputLine(chat.frame())).toBe('› --amend nowgit commit');
  });
});

describe('vim mode in the chat', () => {
  test('editorMode "vim" starts in insert mode; the footer follows the mode; Enter sends from normal mode', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['sent'] }], display: { editorMode: 'vim' } });
    await chat.waitFor((frame) => statusRow(frame).startsWith('-- INSERT --'), 'insert mode');
    await chat.type('hello wide world');
    await chat.press(KEY.escape);
    await chat.waitFor((frame) => statusRow(frame).startsWith('-- NORMAL --'), 'normal mode');
    await chat.type('bdw');
    expect(inputLine(chat.frame())).toBe('› hello wide');
    await chat.type('bcwnarrow');
    expect(statusRow(chat.frame())).toMatch(/^-- INSERT --/);
    await chat.press(KEY.escape, KEY.enter);
    await chat.waitForText('sent');
    expect(fake.prompts).toEqual(['hello narrow']);
    await chat.waitFor((frame) => statusRow(frame).startsWith('-- INSERT --'), 'insert mode for the next prompt');
  });

  test('/vim switches it on and off and saves editorMode', async () => {
    const { chat, fake } = startFakeChat({ turns: [] });
    await chat.submit('/vim');
    await chat.waitForText('Vim mode on');
    await chat.waitFor((frame) => statusRow(frame).startsWith('-- INSERT --'), 'insert mode');
    await chat.submit('/vim');
    await chat.waitForText('Vim mode off');
    expect(statusRow(chat.frame())).not.toContain('INSERT');
    expect(fake.calls.filter((call) => call.startsWith('save:'))).toEqual(['save:editorMode=vim', 'save:editorMode=normal']);
  });
});
