import { afterEach, describe, expect, test, vi } from 'vitest';

// Colours are on in a real terminal; force them here so that NO_COLOR has something to remove.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import { ChatController } from '../../src/ui/controller.js';
import { layoutLive } from '../../src/ui/layout.js';
import { displayWidth, lineText } from '../../src/ui/styled.js';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';
import { closeChats, startChat, stripAnsi } from './harness.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(options: Partial<FakeHostOptions> = {}, size: { columns?: number; rows?: number; noColor?: boolean } = {}) {
  const fake = createFakeHost({ turns: [{ chunks: ['answer'] }], ...options });
  cleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host, size) };
}

const COLOR = /\x1b\[(3[0-7]|9[0-7]|38;)/;
const write = (file: string, content: string) => ({ name: 'write_file', arguments: { path: file, content } });
const diffTurns = [{ toolCalls: [write('a.txt', 'one\ntwo\n')] }, { chunks: ['# Done\nwith `code`'] }];

describe('colour', () => {
  test('diffs, statuses and code are coloured in a colour terminal', async () => {
    const { chat } = setup({ turns: diffTurns });
    await chat.submit('write');
    await chat.waitForText('Allow write_file');
    await chat.answer('y');
    await chat.waitForText('Done');
    const raw = chat.rawFrame();
    expect(raw).toMatch(COLOR);
    expect(raw).toMatch(/\x1b\[32m[^\n]*\+ one/); // added line in green
  });

  test('NO_COLOR: no colour codes at all, and the signs still tell added from removed', async () => {
    const { chat } = setup({ turns: diffTurns }, { noColor: true });
    await chat.submit('write');
    await chat.waitForText('Allow write_file');
    expect(chat.rawFrame()).not.toMatch(COLOR);
    await chat.answer('y');
    const frame = await chat.waitForText('Done');
    for (const raw of chat.stdout.frames) expect(raw).not.toMatch(COLOR);
    expect(frame).toContain('✓ write_file a.txt  +2 -0');
    expect(frame).toMatch(/1 \+ one/);
  });
});

describe('narrow and resized terminals', () => {
  const longText = 'This answer has quite a few words so that it must wrap at sixty columns, and then some more. '.repeat(3);

  test('at 60 columns no row is wider than the terminal', async () => {
    const { chat } = setup(
      {
        turns: [
          { toolCalls: [write('src/some/deeply/nested/folder/with/a/long/file-name.ts', `${'x'.repeat(150)}\n`)] },
          { chunks: [`${longText}\n\`\`\`\n${'y'.repeat(130)}\n\`\`\``] },
        ],
        contextWindow: 100000,
      },
      { columns: 60, rows: 30 },
    );
    await chat.submit(`please ${'write '.repeat(20)}`);
    await chat.waitForText('Allow write_file');
    for (const row of chat.rows()) expect(displayWidth(row)).toBeLessThanOrEqual(60);
    await chat.answer('y');
    await chat.waitForText('some more.');
    await chat.submit('/help');
    const frame = await chat.waitForText('Plugin commands');
    for (const row of frame.split('\n')) expect(displayWidth(row)).toBeLessThanOrEqual(60);
  });

  test('after a resize the live area is laid out for the new width', async () => {
    const { chat } = setup({}, { columns: 100, rows: 30 });
    await chat.type('a prompt that is long enough to wrap once the terminal gets narrower than it is now, surely');
    expect(chat.rows().at(-2)!.length).toBeGreaterThan(60);
    chat.resize(50, 20);
    await chat.waitFor((frame) => frame.split('\n').at(-1)!.length <= 50);
    const rows = chat.rows();
    const liveStart = rows.findLastIndex((row) => row.startsWith('─'));
    expect(rows[liveStart]).toBe('─'.repeat(50));
    for (const row of rows.slice(liveStart)) expect(displayWidth(row)).toBeLessThanOrEqual(50);
  });
});

describe('the live area', () => {
  test('never grows taller than the terminal while a long answer streams; finished lines leave it', async () => {
    const lines = Array.from({ length: 120 }, (_, index) => `line ${index} of a long answer`);
    const fake = createFakeHost({ turns: [{ chunks: lines.map((line) => `${line}\n`), chunkDelayMs: 1 }] });
    cleanups.push(fake.cleanup);
    const controller = new ChatController(fake.host, { width: 60, exit: () => undefined });
    const heights: number[] = [];
    fake.host.session.subscribe(() => heights.push(layoutLive(controller, { width: 60, rows: 12 }, Date.now()).length));
    await controller.host.session.prompt('go');
    controller.transcript.takeBlocks();
    expect(Math.max(...heights)).toBeLessThanOrEqual(11);
    const committed = controller.transcript.blocks.flatMap((block) => block.lines.map(lineText));
    expect(committed).toContain('line 119 of a long answer');
    controller.dispose();
  });

  test('a burst of finished lines reaches the terminal in bounded frames, in order, all of it', async () => {
    const lines = Array.from({ length: 1000 }, (_, index) => `row ${index}`);
    const fake = createFakeHost({ turns: [{ chunks: [lines.join('\n')] }] });
    cleanups.push(fake.cleanup);
    const controller = new ChatController(fake.host, { width: 60, exit: () => undefined });
    await fake.host.session.prompt('go');
    await new Promise<void>((resolve) => {
      const check = () => (controller.transcript.backlog === 0 ? resolve() : setTimeout(check, 20));
      check();
    });
    const blocks = controller.blocks;
    expect(Math.max(...blocks.map((block) => block.lines.length))).toBeLessThanOrEqual(100);
    const rows = blocks.flatMap((block) => block.lines.map(lineText)).filter((row) => row.startsWith('row '));
    expect(rows).toEqual(lines);
    controller.dispose();
  });

  test('one huge unfinished paragraph is clipped to its newest rows', async () => {
    const words = Array.from({ length: 2000 }, (_, index) => `w${index}`).join(' ');
    const fake = createFakeHost({ turns: [{ chunks: [words, ' and more'], chunkDelayMs: 200 }] });
    cleanups.push(fake.cleanup);
    const controller = new ChatController(fake.host, { width: 60, exit: () => undefined });
    const running = fake.host.session.prompt('go');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const live = layoutLive(controller, { width: 60, rows: 15 }, Date.now()).map(lineText);
    expect(live.length).toBeLessThanOrEqual(14);
    expect(live.join('\n')).toContain('w1999');
    expect(live.join('\n')).not.toContain('w0 ');
    fake.host.session.abort();
    await running;
    controller.dispose();
  });

  test('a diff taller than the screen scrolls inside the question: arrows, PgDn, End, Home; Ctrl+O prints it whole above', async () => {
    const content = Array.from({ length: 200 }, (_, index) => `line ${index}`).join('\n');
    const { chat } = setup({ turns: [{ toolCalls: [write('big.txt', content)] }, { chunks: ['ok'] }] }, { columns: 80, rows: 20 });
    await chat.submit('write big');
    const frame = await chat.waitFor(
      (current) => current.includes('Enter takes the highlighted') && /↓ \d+ more lines/.test(current),
      'the question with its diff window',
    );
    const liveRows = stripAnsi(frame).split('\n');
    const promptAt = liveRows.findIndex((row) => row.startsWith('? Allow write_file'));
    expect(liveRows.length - promptAt).toBeLessThanOrEqual(19);
    expect(frame).toContain('line 0');
    expect(frame).not.toContain('line 199');
    await chat.press('\x1b[B');
    await chat.waitFor((current) => current.includes('↑ 1 line above · rows 2-'), 'one row scrolled');
    await chat.press('\x1b[6~');
    await chat.waitFor((current) => /↑ \d{2} lines above/.test(current), 'a page scrolled');
    await chat.press('\x1b[F');
    const end = await chat.waitFor((current) => current.includes('line 199'), 'the last line');
    expect(stripAnsi(end)).toMatch(/^\s+end · /m);
    await chat.press('\x1b[H');
    await chat.waitFor((current) => current.includes('line 0') && !current.includes('line 199'), 'back at the top');
    // Ctrl+O: every row goes to the scrollback, and the question stays open.
    await chat.press('\x0f');
    const printed = await chat.waitFor((current) => current.includes('Whole preview of write_file big.txt (201 rows)'), 'the whole preview printed');
    expect(printed).toContain('Allow write_file');
  });
});
