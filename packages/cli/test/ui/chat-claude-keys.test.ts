import { afterEach, describe, expect, test } from 'vitest';
import { KEY, closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

// Claude Code's Alt keys (Option on macOS set as Meta) and Ctrl+S, as the terminal sends them.
const ALT_M = '\x1bm';
const ALT_P = '\x1bp';
const ALT_T = '\x1bt';
const CTRL_S = '\x13';
const statusRow = (frame: string) => frame.trimEnd().split('\n').at(-1)!;
const inputLine = (frame: string) =>
  frame
    .split('\n')
    .findLast((row) => row.startsWith('› '))
    ?.trimEnd() ?? '';

describe("Claude Code's Alt keys and Ctrl+S in the chat", () => {
  test('Alt+M cycles the permission mode as Shift+Tab does', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['hi'] }] });
    await chat.press(ALT_M);
    expect(statusRow(await chat.waitForText('auto-edit on'))).toContain('auto-edit on');
    expect(fake.host.permissionMode).toBe('auto-edit');
    await chat.press(ALT_M);
    await chat.waitForText('plan mode');
    expect(fake.host.permissionMode).toBe('plan');
  });

  test('Alt+P opens the model picker and keeps the draft; picking switches the model', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['hi'] }] });
    await chat.type('half a prompt');
    await chat.press(ALT_P);
    const picker = await chat.waitForText('Enter switch');
    expect(picker).toContain('Models (fake) — current: fake-model');
    await chat.press(KEY.down, KEY.enter);
    await chat.waitForText('Model switched to fake-large.');
    expect(fake.host.session.model).toBe('fake-large');
    await chat.waitFor((frame) => inputLine(frame) === '› half a prompt', 'the draft back');
  });

  test('Alt+T turns thinking off and on again, back to the level it had', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['hi'] }] });
    await chat.submit('/thinking high');
    await chat.waitForText('Thinking: high from the next request on.');
    await chat.press(ALT_T);
    await chat.waitForText('Thinking off from the next request on (Alt+T turns it on).');
    expect(fake.host.session.thinking).toBe('off');
    await chat.press(ALT_T);
    await chat.waitForText('Thinking on (high) from the next request on.');
    expect(fake.host.session.thinking).toBe('high');
  });

  test('Ctrl+S stashes the draft; after the next prompt is sent it comes back', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['the file is fine'] }] });
    await chat.type('a long refactoring request');
    await chat.press(CTRL_S);
    await chat.waitFor((frame) => inputLine(frame).includes('Ask anything'), 'the emptied input');
    expect(chat.frame()).toContain('Stashed the draft');
    await chat.submit('check a.txt first');
    await chat.waitForText('the file is fine');
    await chat.waitFor((frame) => inputLine(frame) === '› a long refactoring request', 'the stashed draft back');
    expect(fake.prompts).toEqual(['check a.txt first']);
  });

  test('? on an empty input lists the keys under it until the next key; elsewhere it is typed', async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['hi'] }] });
    await chat.waitForText('? for keys');
    await chat.type('?');
    const shown = await chat.waitForText('Ctrl+_');
    const rows = shown.split('\n');
    const input = rows.findLastIndex((row) => row.startsWith('› '));
    expect(rows.slice(input + 1).join('\n')).toMatch(/Alt\+P\s+pick a model/);
    expect(inputLine(shown)).toContain('Ask anything');
    await chat.type('w');
    await chat.waitFor((frame) => !frame.includes('pick a model'), 'the key list to close');
    expect(inputLine(chat.frame())).toBe('› w');
    await chat.type('hy?');
    expect(inputLine(chat.frame())).toBe('› why?');
  });
});
