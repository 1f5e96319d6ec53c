import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';
import { closeChats, startChat } from './harness.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(options: FakeHostOptions, rows = 30) {
  const fake = createFakeHost(options);
  cleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host, { columns: 100, rows }) };
}

const CTRL_O = '\x0f';
const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('finished tools say what they did, with numbers', () => {
  test('read_file: read 50 lines', async () => {
    const { chat, fake } = setup({ turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'fifty.txt' } }] }, { chunks: ['read'] }] });
    writeFileSync(path.join(fake.root, 'fifty.txt'), lines(50));
    await chat.submit('read it');
    const frame = await chat.waitForText('read 50 lines');
    expect(frame).toContain('✓ read_file fifty.txt · read 50 lines');
  });

  test('grep: 12 matches in 4 files', async () => {
    const { chat, fake } = setup({ turns: [{ toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }] }, { chunks: ['found'] }] });
    mkdirSync(path.join(fake.root, 'src'));
    for (const [file, count] of [
      ['a.ts', 3],
      ['b.ts', 3],
      ['c.ts', 3],
      ['src/d.ts', 3],
    ] as const) {
      writeFileSync(path.join(fake.root, file), 'needle\nhay\n'.repeat(count));
    }
    await chat.submit('find the needle');
    const frame = await chat.waitForText('found');
    expect(frame).toMatch(/✓ grep .*· 12 matches in 4 files/);
  });

  test('glob and list_directory count files', async () => {
    const { chat, fake } = setup({
      turns: [
        {
          toolCalls: [
            { name: 'glob', arguments: { pattern: '*.md' } },
            { name: 'list_directory', arguments: { path: '.' } },
          ],
        },
        { chunks: ['listed'] },
      ],
    });
    for (const name of ['a.md', 'b.md', 'c.txt']) writeFileSync(path.join(fake.root, name), 'x\n');
    await chat.submit('list');
    const frame = await chat.waitForText('listed');
    expect(frame).toMatch(/✓ glob .*· 2 files/);
    expect(frame).toMatch(/✓ list_directory .*· 0 folders, 3 files/);
  });

  test('shell: exit 0 · 496 lines, and a failing command its exit code', async () => {
    const { chat } = setup({
      turns: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'seq 1 496' } }] },
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo oops; exit 3' } }] },
        { chunks: ['ran'] },
      ],
    });
    await chat.submit('count');
    await chat.waitForText('Allow shell');
    await chat.answer('y');
    await chat.waitForText('Allow shell echo oops');
    await chat.answer('y');
    const frame = await chat.waitForText('ran');
    expect(frame).toContain('✓ shell seq 1 496 · exit 0 · 496 lines');
    expect(frame).toMatch(/✗ shell echo oops; exit 3 · error · exit 3 · 1 line/);
  });
});

describe('Ctrl+O expands the last tool output and folds it again', () => {
  test('the whole output replaces the preview, then the preview comes back', async () => {
    const { chat } = setup({ turns: [{ toolCalls: [{ name: 'shell', arguments: { command: 'seq 101 130' } }] }, { chunks: ['done'] }] }, 60);
    await chat.submit('count');
    await chat.waitForText('Allow shell');
    await chat.answer('y');
    const collapsed = await chat.waitFor((frame) => frame.includes('done') && frame.includes('Ask anything'), 'the end of the turn');
    expect(collapsed).toContain('    101');
    expect(collapsed).not.toMatch(/^ {4}130$/m);
    await chat.press(CTRL_O);
    const expanded = await chat.waitFor((frame) => /^ {4}130$/m.test(frame), 'the whole output');
    expect(expanded.match(/^ {4}1[0-3]\d$/gm)).toHaveLength(30);
    expect(expanded.split('\n').filter((row) => row.startsWith('› count'))).toHaveLength(1);
    await chat.press(CTRL_O);
    const again = await chat.waitFor((frame) => !/^ {4}130$/m.test(frame) && frame.includes('done'), 'the preview again');
    expect(again).toContain('    101');
  });

  test('a cut output is read back whole from the file it was saved to', async () => {
    const { chat } = setup({ turns: [{ toolCalls: [{ name: 'shell', arguments: { command: 'seq 1 8000' } }] }, { chunks: ['done'] }] });
    await chat.submit('count');
    await chat.waitForText('Allow shell');
    await chat.answer('y');
    const collapsed = await chat.waitFor((frame) => frame.includes('done') && frame.includes('Ask anything'), 'the end of the turn');
    expect(collapsed).toContain('exit 0 · 8,000 lines');
    await chat.press(CTRL_O);
    // Line 3000 was cut from what the model saw; the saved file has it.
    // Joined where the saved file's path wraps the note (its length depends on the machine's TMPDIR).
    const expanded = await chat.waitFor((frame) => frame.replace(/\n\s+/g, ' ').includes('(whole output from '), 'the note under the whole output', 8000);
    expect(chat.output()).toMatch(/^ {4}3000$/m);
    // At most 5,000 lines are laid out; the note says where the rest is.
    expect(expanded).toMatch(/^ {4}5000$/m);
    expect(expanded).not.toMatch(/^ {4}5001$/m);
    expect(expanded.replace(/\n\s+/g, ' ')).toContain('Its first 5,000 lines are shown; the rest is in the file.');
  });

  test('with no finished tool, Ctrl+O says so', async () => {
    const { chat } = setup({ turns: [{ chunks: ['hi'] }] });
    await chat.press(CTRL_O);
    await chat.waitForText('No finished tool output to expand yet');
  });
});
