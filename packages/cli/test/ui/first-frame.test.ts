import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, test } from 'vitest';
import { ChatController } from '../../src/ui/controller.js';
import { drawFirstFrame, firstFrameLines, linesToAnsi } from '../../src/ui/first-frame.js';
import { typedReads } from '../../src/ui/keys.js';
import { layoutLive } from '../../src/ui/layout.js';
import { createFakeHost } from './fake-host.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('the first frame drawn before the session (issue #36)', () => {
  test.each([
    { width: 120, rows: 40, mode: 'default' as const, vim: false },
    { width: 60, rows: 12, mode: 'plan' as const, vim: false },
    { width: 80, rows: 24, mode: 'yolo' as const, vim: true },
    { width: 20, rows: 6, mode: 'auto-edit' as const, vim: false },
  ])('has the rows the chat lays out for a fresh session: $width x $rows, $mode, vim $vim', ({ width, rows, mode, vim }) => {
    const fake = createFakeHost({ turns: [{ chunks: ['hi'] }], permissionMode: mode, display: { editorMode: vim ? 'vim' : 'normal' } });
    cleanups.push(fake.cleanup);
    // The fake host reports a language server running; a session that just started has none yet.
    const host = { ...fake.host, lspServers: () => [] };
    Object.defineProperty(host, 'session', { get: () => fake.host.session });
    const controller = new ChatController(host, { width, exit: () => undefined });
    cleanups.push(() => controller.dispose());
    const chat = layoutLive(controller, { width, rows }, Date.now());
    const first = firstFrameLines({ width, rows, theme: 'dark', noColor: false, mode, model: controller.session.model, branch: controller.branch, vim });
    expect(first).toEqual(chat);
  });

  test('as terminal text: theme colours, NO_COLOR keeps bold, dim and inverse', () => {
    const line = [
      [
        { text: 'model', style: { color: 'magenta' as const } },
        { text: ' hint', style: { dim: true } },
        { text: ' ', style: { inverse: true } },
        { text: 'plain' },
      ],
    ];
    expect(linesToAnsi(line, 'dark', false, {})).toBe('\x1b[35mmodel\x1b[0m\x1b[2m hint\x1b[0m\x1b[7m \x1b[0mplain');
    expect(linesToAnsi(line, 'dark', true, {})).toBe('model\x1b[0m\x1b[2m hint\x1b[0m\x1b[7m \x1b[0mplain'.replace('model\x1b[0m', 'model'));
    // light: #9b1d9b as 256 colours, or as RGB when the terminal says truecolor; high contrast: bright, nothing dim.
    expect(linesToAnsi(line, 'light', false, {})).toContain('\x1b[38;5;');
    expect(linesToAnsi(line, 'light', false, { COLORTERM: 'truecolor' })).toContain('\x1b[38;2;155;29;155mmodel');
    expect(linesToAnsi(line, 'high-contrast', false, {})).toBe('\x1b[95mmodel\x1b[0m hint\x1b[7m \x1b[0mplain');
  });

  test('keys typed during start-up: an unbracketed Enter stays Enter, a bracketed paste stays whole', () => {
    expect(typedReads('fix it\rth')).toEqual(['fix it', '\r', 'th']);
    expect(typedReads('\r\r')).toEqual(['\r', '\r']);
    expect(typedReads('line\x1b\rnext')).toEqual(['line\x1b\rnext']);
    expect(typedReads('\x1b[200~a\rb\x1b[201~')).toEqual(['\x1b[200~a\rb\x1b[201~']);
    expect(typedReads('')).toEqual([]);
  });

  test('reads what is typed until the chat takes over, hands it over in order, then what comes until Ink reads', () => {
    const stdout = {
      written: '',
      write(text: string) {
        this.written += text;
        return true;
      },
    };
    const stdin = Object.assign(new EventEmitter(), {
      isTTY: true,
      isRaw: false,
      raw: [] as boolean[],
      setRawMode(on: boolean) {
        this.isRaw = on;
        this.raw.push(on);
      },
      pause() {},
    });
    const frame = drawFirstFrame(stdout as unknown as NodeJS.WriteStream, stdin as unknown as NodeJS.ReadStream, {
      width: 40,
      rows: 20,
      theme: 'dark',
      noColor: true,
      mode: 'default',
      vim: false,
    });
    expect(stdin.raw).toEqual([true]);
    expect(stdout.written).toContain('Ask anything');
    stdin.emit('data', Buffer.from('hello\rmo'));
    stdin.emit('data', Buffer.from('re'));
    const erase = frame.handOver();
    // Three rows (rule, input, status), each ended by a newline: the cursor's row and three above.
    expect(erase).toBe('\x1b[?2026h\x1b[2K' + '\x1b[1A\x1b[2K'.repeat(3) + '\x1b[G');
    const delivered: string[] = [];
    frame.replay((input) => delivered.push(input));
    expect(delivered).toEqual(['hello', '\r', 'mo', 're']);
    stdin.emit('data', Buffer.from('!'));
    expect(delivered.at(-1)).toBe('!');
    // Ink's own reading starts: this reader steps aside.
    stdin.on('readable', () => undefined);
    stdin.emit('data', Buffer.from('late'));
    expect(delivered.at(-1)).toBe('!');
    frame.clear();
    expect(stdin.raw).toEqual([true]);
  });

  test('cleared (a question or an error comes instead of the chat): erased, cursor back, raw mode off, keys dropped', () => {
    const stdout = {
      written: '',
      write(text: string) {
        this.written += text;
        return true;
      },
    };
    const stdin = Object.assign(new EventEmitter(), {
      isTTY: true,
      isRaw: false,
      raw: [] as boolean[],
      setRawMode(on: boolean) {
        this.isRaw = on;
        this.raw.push(on);
      },
      pause() {},
    });
    const frame = drawFirstFrame(stdout as unknown as NodeJS.WriteStream, stdin as unknown as NodeJS.ReadStream, {
      width: 40,
      rows: 20,
      theme: 'dark',
      noColor: true,
      mode: 'default',
      vim: false,
    });
    stdin.emit('data', Buffer.from('y'));
    frame.clear();
    expect(stdout.written.endsWith('\x1b[G\x1b[?25h\x1b[?2004l')).toBe(true);
    expect(stdin.raw).toEqual([true, false]);
    expect(stdin.listenerCount('data')).toBe(0);
    expect(frame.handOver()).toBe('');
  });

  test('a resize before the chat takes over: the screen is cleared instead of counting reflowed rows back up', () => {
    const stdout = Object.assign(new EventEmitter(), {
      written: '',
      write(text: string) {
        this.written += text;
        return true;
      },
    });
    const stdin = Object.assign(new EventEmitter(), {
      isTTY: true,
      isRaw: false,
      setRawMode(on: boolean) {
        this.isRaw = on;
      },
      pause() {},
    });
    const frame = drawFirstFrame(stdout as unknown as NodeJS.WriteStream, stdin as unknown as NodeJS.ReadStream, {
      width: 40,
      rows: 20,
      theme: 'dark',
      noColor: true,
      mode: 'default',
      vim: false,
    });
    stdout.emit('resize');
    expect(frame.handOver()).toBe('\x1b[?2026h\x1b[2J\x1b[3J\x1b[H');
    expect(stdout.listenerCount('resize')).toBe(0);
  });
});
