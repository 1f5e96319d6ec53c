import { afterEach, describe, expect, test } from 'vitest';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';
import { closeChats, startChat } from './harness.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const CLEAR = '\x1b[2J\x1b[3J\x1b[H';

const LONG = 'This sentence is long enough that it wraps differently at a hundred and twenty columns than at eighty columns, as real answers do.';
const turns: FakeHostOptions['turns'] = [
  { chunks: [`## Result\n\n${LONG}\n\n- first point that is also rather long, long enough to wrap once the window is narrow\n- second`] },
];

function setup(columns: number) {
  const fake = createFakeHost({ turns });
  cleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host, { columns, rows: 30 }) };
}

/** The frame with the temporary workspace path (different per chat) taken out. */
const normalise = (frame: string, root: string) =>
  frame
    .split(root)
    .join('<ws>')
    .split('\n')
    .map((row) => row.trimEnd())
    .join('\n');

describe('redraw', () => {
  test('shrinking the window in steps lays the whole transcript out again, the same as a fresh chat at that width', async () => {
    const wide = setup(120);
    await wide.chat.submit('explain');
    await wide.chat.waitForText('second');
    await wide.chat.waitForText('Ask anything');
    for (const columns of [110, 100, 90, 80]) wide.chat.resize(columns, 30);
    const clearsBefore = wide.chat.stdout.frames.filter((frame) => frame === CLEAR).length;
    expect(clearsBefore).toBe(0);
    // One redraw once the resizes settle: the screen and scrollback are cleared, then drawn again.
    await wide.chat.waitFor(() => wide.chat.stdout.frames.includes(CLEAR), 'the clear-screen write');
    const after = await wide.chat.waitFor((frame) => frame.includes('second') && frame.includes('Ask anything'), 'the redrawn chat');
    expect(wide.chat.stdout.frames.filter((frame) => frame === CLEAR)).toHaveLength(1);

    const fresh = setup(80);
    await fresh.chat.submit('explain');
    await fresh.chat.waitForText('second');
    const expected = await fresh.chat.waitForText('Ask anything');

    expect(normalise(after, wide.fake.root)).toBe(normalise(expected, fresh.fake.root));
    const rows = after.split('\n');
    expect(rows.every((row) => row.trimEnd().length <= 80)).toBe(true);
    expect(rows.filter((row) => /^─+$/.test(row.trim()))).toHaveLength(1);
    expect(rows.filter((row) => row.includes('Ask anything'))).toHaveLength(1);
    expect(rows.filter((row) => row.startsWith('› explain'))).toHaveLength(1);
  });

  test('Ctrl+L clears the screen and draws everything once more, keeping what was typed', async () => {
    const { chat } = setup(100);
    await chat.submit('explain');
    await chat.waitForText('second');
    await chat.type('half typed');
    await chat.press('\x0c');
    await chat.waitFor(() => chat.stdout.frames.includes(CLEAR), 'the clear-screen write');
    const frame = await chat.waitFor((current) => current.includes('half typed') && current.includes('second'), 'the redrawn chat');
    expect(frame.split('\n').filter((row) => row.startsWith('› explain'))).toHaveLength(1);
    expect(frame).toContain(LONG.slice(0, 40));
  });

  test('a redraw while an answer streams keeps the streamed text and goes on streaming', async () => {
    const fake = createFakeHost({ turns: [{ chunks: ['first line\n', 'second line\n', 'third line'], chunkDelayMs: 150 }] });
    cleanups.push(fake.cleanup);
    const chat = startChat(fake.host, { columns: 100, rows: 30 });
    await chat.submit('go');
    await chat.waitForText('first line');
    chat.resize(70, 30);
    await chat.waitFor(() => chat.stdout.frames.includes(CLEAR), 'the clear-screen write');
    const frame = await chat.waitFor((current) => current.includes('third line') && current.includes('Ask anything'), 'the end of the answer');
    for (const text of ['first line', 'second line', 'third line']) expect(frame.split(text)).toHaveLength(2);
  });

  test('start-up notices (the model picked, warnings) are part of the transcript, so a redraw keeps them', async () => {
    const fake = createFakeHost({
      turns,
      startupNotices: [
        { kind: 'info', text: 'No model configured; using fake-model.' },
        { kind: 'warning', text: '1 hook(s) this repository brings did not load because the workspace is not trusted.' },
      ],
    });
    cleanups.push(fake.cleanup);
    const chat = startChat(fake.host, { columns: 100, rows: 30 });
    const first = await chat.waitForText('Ask anything');
    expect(first).toContain('No model configured; using fake-model.');
    expect(first).toContain('! warning: 1 hook(s) this repository brings did not load');
    chat.resize(80, 30);
    await chat.waitFor(() => chat.stdout.frames.includes(CLEAR), 'the clear-screen write');
    const after = await chat.waitForText('Ask anything');
    expect(after).toContain('No model configured; using fake-model.');
    expect(after).toContain('! warning: 1 hook(s) this repository brings did not');
  });

  test('a resize while a permission question is open redraws the question, and it still answers', async () => {
    const fake = createFakeHost({ turns: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x\n' } }] }, { chunks: ['written'] }] });
    cleanups.push(fake.cleanup);
    const chat = startChat(fake.host, { columns: 100, rows: 30 });
    await chat.submit('write it');
    await chat.waitForText('Allow write_file a.txt?');
    chat.resize(70, 30);
    await chat.waitFor(() => chat.stdout.frames.includes(CLEAR), 'the clear-screen write');
    const frame = await chat.waitForText('Allow write_file a.txt?');
    expect(frame.split('\n').every((row) => row.trimEnd().length <= 70)).toBe(true);
    await chat.answer('y');
    await chat.waitForText('written');
  });
});
