import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import fastStringWidth, { ONE_COLUMN_EACH } from '../../src/ui/string-width.js';

// Every BMP character the fast path takes: each must be exactly what string-width says.
const fastCharacters = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).filter((character) => ONE_COLUMN_EACH.test(character));

describe('fastStringWidth', () => {
  it('gives string-width’s answer for every character of its fast path, alone and together', () => {
    expect(fastCharacters.length).toBeGreaterThan(600);
    for (const character of fastCharacters) expect([character, fastStringWidth(character)]).toEqual([character, stringWidth(character)]);
    const all = fastCharacters.join('');
    expect(fastStringWidth(all)).toBe(stringWidth(all));
  });

  it('leaves everything else to string-width', () => {
    for (const text of ['👍', '中文', 'e\u0301', '\u00ad', '©\ufe0f', '1\ufe0f\u20e3', '\u001b[31mred\u001b[39m ─', '→ ⚡', 'a\u200db', 'x\u202ey']) {
      expect([text, fastStringWidth(text)]).toEqual([text, stringWidth(text)]);
    }
    expect(fastStringWidth('')).toBe(0);
  });

  it('takes no columns for colours and styles, unless asked to count them', () => {
    const styled = '\u001b[1m\u001b[36m› \u001b[39m\u001b[22m\u001b[2m Ask anything · / for commands\u001b[22m ─↑';
    expect(fastStringWidth(styled)).toBe(stringWidth(styled));
    expect(fastStringWidth(styled, { countAnsiEscapeCodes: true })).toBe(stringWidth(styled, { countAnsiEscapeCodes: true }));
    expect(fastStringWidth('\u001b[31m中\u001b[39m')).toBe(2);
  });

  it('counts ambiguous characters as two columns when asked to', () => {
    expect(fastStringWidth('─·↑', { ambiguousIsNarrow: false })).toBe(stringWidth('─·↑', { ambiguousIsNarrow: false }));
    expect(fastStringWidth('─·↑', { ambiguousIsNarrow: false })).toBeGreaterThan(3);
  });
});
