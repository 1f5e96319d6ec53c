import { describe, expect, test } from 'vitest';
import { ansiLine } from '../../src/ui/ansi-spans.js';

describe('a status line command output as spans', () => {
  test('SGR colours and weights become styles; reset ends them', () => {
    expect(ansiLine('\x1b[1;32mok\x1b[0m main \x1b[33m+2\x1b[39m')).toEqual([
      { text: 'ok', style: { bold: true, color: 'green' } },
      { text: ' main ' },
      { text: '+2', style: { color: 'yellow' } },
    ]);
  });

  test('256 and true colour parameters are skipped without eating the next attribute', () => {
    expect(ansiLine('\x1b[38;5;208;1mx\x1b[38;2;1;2;3mY')).toEqual([
      { text: 'x', style: { bold: true } },
      { text: 'Y', style: { bold: true } },
    ]);
  });

  test('cursor moves, titles, clears and control characters are dropped', () => {
    expect(ansiLine('a\x1b[2J\x1b]0;title\x07b\x1b[Hc\rd\x07e\tf')).toEqual([{ text: 'a' }, { text: 'b' }, { text: 'cde f' }]);
  });
});
