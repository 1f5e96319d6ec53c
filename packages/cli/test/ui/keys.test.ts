import { describe, expect, test } from 'vitest';
import { KeyDecoder } from '../../src/ui/keys.js';

const decode = (...raws: string[]) => {
  const decoder = new KeyDecoder();
  return raws.flatMap((raw) => decoder.decode(raw));
};

describe('key decoding', () => {
  test('a lone carriage return is Enter; Alt+Enter and Shift+Enter are new lines', () => {
    expect(decode('\r')).toEqual([{ type: 'key', name: 'enter' }]);
    expect(decode('\x1b\r', '\x1b[13;2u', '\x1b[27;2;13~')).toEqual([
      { type: 'key', name: 'newline' },
      { type: 'key', name: 'newline' },
      { type: 'key', name: 'newline' },
    ]);
  });

  test('a bracketed paste is one piece of text, even across reads and with carriage returns', () => {
    expect(decode('\x1b[200~', 'line one\r', 'line two\r\n\tx', '\x1b[201~')).toEqual([{ type: 'text', text: 'line one\nline two\n    x', paste: true }]);
  });

  test('several characters in one read are text, and a carriage return inside them does not submit', () => {
    expect(decode('first\rsecond')).toEqual([{ type: 'text', text: 'first\nsecond', paste: true }]);
  });

  test('one line and a final carriage return in one read is typing followed by Enter', () => {
    expect(decode('fix the add function\r')).toEqual([
      { type: 'text', text: 'fix the add function', paste: false },
      { type: 'key', name: 'enter' },
    ]);
    expect(decode('two\rlines\r')).toEqual([{ type: 'text', text: 'two\nlines\n', paste: true }]);
  });

  test('control keys that arrive together in one read stay keys (Ctrl+X Ctrl+K, held-down Ctrl+W)', () => {
    expect(decode('\x18\x0b', 'ab\x17\x17')).toEqual([
      { type: 'key', name: 'ctrl-x' },
      { type: 'key', name: 'ctrl-k' },
      { type: 'text', text: 'ab', paste: false },
      { type: 'key', name: 'ctrl-w' },
      { type: 'key', name: 'ctrl-w' },
    ]);
  });

  test('held-down Backspace arriving in one read still deletes', () => {
    expect(decode('\x7f\x7f')).toEqual([
      { type: 'key', name: 'backspace' },
      { type: 'key', name: 'backspace' },
    ]);
  });

  test('arrows, word motions, control letters and Escape', () => {
    expect(decode('\x1b[A', '\x1b[1;5D', '\x1bf', '\x03', '\x04', '\x1b', '\x1b[3~')).toEqual([
      { type: 'key', name: 'up' },
      { type: 'key', name: 'word-left' },
      { type: 'key', name: 'word-right' },
      { type: 'key', name: 'ctrl-c' },
      { type: 'key', name: 'ctrl-d' },
      { type: 'key', name: 'escape' },
      { type: 'key', name: 'delete' },
    ]);
  });

  test('Ctrl+_ (and Ctrl+/, which most terminals send the same) is undo, also in the kitty protocol', () => {
    expect(decode('\x1f', '\x1b[95;5u', '\x1b[47;5u', '\x19')).toEqual([
      { type: 'key', name: 'undo' },
      { type: 'key', name: 'undo' },
      { type: 'key', name: 'undo' },
      { type: 'key', name: 'ctrl-y' },
    ]);
  });

  test('Alt+letter is ESC and the letter (or the kitty protocol with Alt); Alt+B and Alt+F stay word motions', () => {
    expect(decode('\x1bm', '\x1bp', '\x1b[116;3u', '\x1bb', '\x1b[102;3u')).toEqual([
      { type: 'key', name: 'alt-m' },
      { type: 'key', name: 'alt-p' },
      { type: 'key', name: 'alt-t' },
      { type: 'key', name: 'word-left' },
      { type: 'key', name: 'word-right' },
    ]);
  });

  test('unknown escape sequences are ignored rather than typed', () => {
    expect(decode('\x1b[I', '\x1b[99~')).toEqual([]);
  });
});
