import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { KEY, closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

const SHIFT_TAB = '\x1b[Z';
const statusRow = (frame: string) => frame.trimEnd().split('\n').at(-1)!;
const write = (file: string) => ({ name: 'write_file', arguments: { path: file, content: 'x\n' } });

describe('the permission mode', () => {
  test('is not shown in default mode; Shift+Tab cycles auto-edit, plan and back, and the status line says which', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['hi'] }] });
    await chat.waitForText('Ask anything');
    expect(statusRow(chat.frame())).not.toMatch(/auto-edit|plan mode/);
    await chat.press(SHIFT_TAB);
    expect(statusRow(await chat.waitForText('auto-edit on'))).toContain('⏵⏵ auto-edit on (shift+tab)');
    expect(fake.host.permissionMode).toBe('auto-edit');
    await chat.press(SHIFT_TAB);
    expect(statusRow(await chat.waitForText('plan mode'))).toContain('⏵⏵ plan mode');
    expect(fake.host.permissionMode).toBe('plan');
    await chat.press(SHIFT_TAB);
    await chat.waitFor((frame) => !frame.includes('plan mode'), 'the mode to leave the status line');
    expect(fake.host.permissionMode).toBe('default');
  });

  test('the chosen mode governs the next tool call: auto-edit writes without asking, plan refuses', async () => {
    const { chat, fake } = startFakeChat({
      turns: [{ toolCalls: [write('a.txt')] }, { chunks: ['wrote a'] }, { toolCalls: [write('b.txt')] }, { chunks: ['planned b'] }],
    });
    await chat.press(SHIFT_TAB);
    await chat.submit('write a');
    await chat.waitForText('wrote a');
    expect(existsSync(path.join(fake.root, 'a.txt'))).toBe(true);
    await chat.press(SHIFT_TAB);
    await chat.submit('write b');
    const frame = await chat.waitForText('planned b');
    expect(frame).toMatch(/⊘ write_file b\.txt · denied/);
    expect(existsSync(path.join(fake.root, 'b.txt'))).toBe(false);
  });
});

describe('/permissions', () => {
  test('lists the rules in force with their sources, and forgets a session approval so Beans asks again', async () => {
    const { chat, fake } = startFakeChat({
      allow: ['shell(git status)'],
      turns: [{ toolCalls: [write('one.txt')] }, { chunks: ['first'] }, { toolCalls: [write('two.txt')] }, { chunks: ['second'] }],
    });
    await chat.submit('write one');
    await chat.waitForText('Allow write_file');
    await chat.answer('a');
    await chat.waitForText('first');
    await chat.submit('/permissions');
    const listing = await chat.waitForText('Forget a session approval?');
    expect(listing).toContain('Permission mode: default');
    expect(listing).toMatch(/shell\(git status\)\s+\/home\/me\/\.config\/beans\/settings\.json/);
    // Issue #31: the built-in read-only rule is listed beside the others.
    expect(listing).toMatch(/Allowed without asking[^\n]*\n\s+read-only shell commands \(ls, cat, grep/);
    expect(listing).toMatch(/Approved in this session[^\n]*\n\s+write_file\s+this session/);
    expect(listing).toContain('Enter forget');
    await chat.press(KEY.enter);
    await chat.waitForText('Forgot 1 session approval');
    expect(fake.host.permissionRules().approved).toEqual([]);
    await chat.submit('write two');
    await chat.waitForText('Allow write_file two.txt?');
  });

  test('without approvals it only lists; Esc on the picker keeps them', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ toolCalls: [write('one.txt')] }, { chunks: ['first'] }] });
    await chat.submit('/permissions');
    const listing = await chat.waitForText('(none)');
    expect(listing).not.toContain('Forget a session approval?');
    await chat.submit('go');
    await chat.waitForText('Allow write_file');
    await chat.answer('a');
    await chat.waitForText('first');
    await chat.submit('/permissions');
    await chat.waitForText('Forget a session approval?');
    await chat.press(KEY.escape);
    await chat.waitFor((frame) => !frame.includes('Forget a session approval?'), 'the picker to close');
    expect(fake.host.permissionRules().approved).toEqual(['write_file']);
  });
});
