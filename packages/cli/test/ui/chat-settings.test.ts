import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);
// Ink's chalk loads with the first chat of this file: true colour, so theme colours can be read back.
beforeAll(() => {
  process.env.FORCE_COLOR = '3';
  process.env.COLORTERM = 'truecolor';
});

const statusRow = (frame: string) => frame.trimEnd().split('\n').at(-1)!;

describe('ui.theme', () => {
  test('dark prints the named colours; light darker shades; high-contrast bright colours and nothing dimmed', async () => {
    const raw: Record<string, string> = {};
    for (const theme of ['dark', 'light', 'high-contrast'] as const) {
      const { chat } = startFakeChat({ turns: [{ chunks: ['ok'] }], display: { theme } });
      await chat.submit('hello');
      await chat.waitForText('ok');
      await chat.waitForText('Ask anything');
      raw[theme] = chat.rawFrame();
      await chat.close();
    }
    // The user's prompt is cyan: ANSI 36 in dark, #006d7a in light, bright cyan (96) in high contrast.
    expect(raw.dark).toMatch(/\x1b\[36m› /);
    expect(raw.light).toMatch(/\x1b\[38;2;0;109;122m› /);
    expect(raw['high-contrast']).toMatch(/\x1b\[96m› /);
    expect(raw.dark).toContain('\x1b[2m');
    expect(raw['high-contrast']).not.toContain('\x1b[2m');
  });
});

describe('ui.markdown', () => {
  const answer = '# Title\nSome **bold** text\n| a | b |\n|---|---|\n| 1 | 2 |';
  test('false shows the answer as written; true renders it', async () => {
    const plain = startFakeChat({ turns: [{ chunks: [answer] }], display: { markdown: false } });
    await plain.chat.submit('show');
    const frame = await plain.chat.waitForText('| 1 | 2 |');
    expect(frame).toContain('# Title');
    expect(frame).toContain('Some **bold** text');
    expect(frame).not.toContain('┌');
    const rendered = startFakeChat({ turns: [{ chunks: [answer] }] });
    await rendered.chat.submit('show');
    const other = await rendered.chat.waitForText('│ 1 │ 2 │');
    expect(other).toContain('Some bold text');
    expect(other).not.toContain('# Title');
  });
});

describe('ui.showCost', () => {
  test('the status line shows the cost unless ui.showCost is false', async () => {
    const turns = [{ chunks: ['ok'], usage: { inputTokens: 1000, outputTokens: 100, costUsd: 0.25 } }];
    const shown = startFakeChat({ turns });
    await shown.chat.submit('go');
    expect(statusRow(await shown.chat.waitForText('$0.25'))).toContain('$0.25');
    const hidden = startFakeChat({ turns, display: { showCost: false } });
    await hidden.chat.submit('go');
    await hidden.chat.waitForText('ok');
    const frame = await hidden.chat.waitFor((current) => statusRow(current).includes('↑1.0k'), 'the usage in the status line');
    expect(statusRow(frame)).not.toContain('$');
  });
});

describe('debug', () => {
  test('each turn ends with a line of figures, and errors show their stack', async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['ok'] }], display: { debug: true } });
    await chat.submit('go');
    const frame = await chat.waitForText('debug · 1 request');
    expect(frame).toMatch(/debug · 1 request · \d+\.\ds in all, \d+\.\ds waiting for the provider · ↑1200 ↓300 tokens · stop: completed/);
    await chat.submit('crash the host');
    const crash = await chat.waitForText('kaboom in the host');
    expect(crash).toMatch(/^\s*at .*fake-host\.ts/m);
  });

  test('without debug there is no figures line and errors are one sentence', async () => {
    const { chat } = startFakeChat({ turns: [{ chunks: ['ok'] }] });
    await chat.submit('go');
    await chat.waitForText('ok');
    await chat.submit('crash the host');
    const crash = await chat.waitForText('kaboom in the host');
    expect(crash).not.toContain('debug ·');
    expect(crash).not.toMatch(/^\s*at /m);
  });
});
