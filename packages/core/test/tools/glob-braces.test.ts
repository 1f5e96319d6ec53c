import { describe, expect, it } from 'vitest';
import { assertBraceExpansionBounded, countBraceExpansions, MAX_BRACE_EXPANSIONS } from '../../src/tools/glob-braces.js';

describe('countBraceExpansions', () => {
  it.each([
    ['**/*.ts', 1],
    ['{a,b}', 2],
    ['{a,b}/{c,d,e}', 6],
    ['{a,{b,c}}', 3],
    ['{a,b{c,d}}x', 3],
    ['{1..10}', 10],
    ['{a..e}', 5],
    ['{0..100..10}', 11],
    ['{a}', 1],
    ['\\{a,b}', 1],
    ['{a,b', 1],
    ['{a,b}'.repeat(20), 2 ** 20],
    ['{1..99999999}', 99999999],
  ])('%s expands to %i patterns', (pattern, count) => {
    expect(countBraceExpansions(pattern)).toBe(count);
  });

  it('refuses more than the limit with a message the model can act on, and allows up to it', () => {
    expect(() => assertBraceExpansionBounded('{a,b}'.repeat(10))).not.toThrow();
    expect(() => assertBraceExpansionBounded(`{${Array.from({ length: MAX_BRACE_EXPANSIONS }, (_, i) => i).join(',')}}`)).not.toThrow();
    expect(() => assertBraceExpansionBounded('{a,b}'.repeat(11))).toThrow(/expand to 2,048 patterns \(limit 1,024\)\. Use fewer/);
    expect(() => assertBraceExpansionBounded('{a,b}'.repeat(2000))).toThrow(/expand to too many patterns/);
  });
});
