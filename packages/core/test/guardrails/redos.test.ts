import { describe, expect, it } from 'vitest';
import { checkInput, checkOutput, compileGuardrails, parseGuardrails, redactSecrets } from '../../src/guardrails/index.js';
import { BUILTIN_DETECTORS, findMatches } from '../../src/guardrails/builtins.js';

// Attack tests: guardrail patterns and the texts they judge may come from a cloned repository (its
// `.beans/agent.md`, a file a tool read). Under a backtracking engine the patterns below take
// exponential time, and the built-in detectors used to take quadratic time on long runs of one
// character; a hung check hangs the whole session. Each case must finish well within a second.
const LIMIT_MS = 1000;

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

describe("a repository's catastrophic guardrail pattern", () => {
  // 25 `a`s keep the failing run finite under JavaScript's engine (seconds); each further `a` doubles it.
  const hostile = `${'a'.repeat(25)}!`;

  it('is matched in linear time and still blocks, redacts and warns', { timeout: 60_000 }, async () => {
    const agent = parseGuardrails(
      {
        input: [{ pattern: '^(a+)+$', action: 'block' }],
        output: [
          { pattern: '(a|a?)+b', action: 'redact', name: 'ab' },
          { pattern: '(\\w+\\s?)+$', action: 'warn', message: 'Ends in a word.' },
        ],
      },
      '.beans/agent.md',
    );
    const rails = await compileGuardrails({ rules: agent, where: '.beans/agent.md' });
    const attack = timed(() => [checkInput(rails, hostile), checkOutput(rails, hostile)]);
    expect(attack.value).toEqual([
      { text: hostile, warnings: [], redacted: [] },
      { text: hostile, warnings: [], redacted: [] },
    ]);
    expect(attack.ms).toBeLessThan(LIMIT_MS);

    expect(checkInput(rails, 'aaaa').blocked?.rule).toBe('pattern /^(a+)+$/');
    expect(checkOutput(rails, 'aab, b and ab end')).toEqual({
      text: '[REDACTED:ab], [REDACTED:ab] and [REDACTED:ab] end',
      warnings: ['Ends in a word.'],
      redacted: ['ab'],
    });
  });
});

describe('the built-in detectors on hostile text', () => {
  const size = 100_000;
  const cases: [keyof typeof BUILTIN_DETECTORS, string, string][] = [
    ['secrets', 'a run of spaces', ` ${' '.repeat(size)}x`],
    ['secrets', 'a colon and spaces', `:${' '.repeat(size)}`],
    ['secrets', 'Bearer and spaces', `Bearer${' '.repeat(size)}`],
    ['secrets', 'repeated JWT starts', 'eyJ-'.repeat(size / 4)],
    ['secrets', 'repeated key names', 'password'.repeat(size / 8)],
    ['secrets', 'PEM starts and near ends', `${'-----BEGIN PRIVATE KEY-----'.repeat(100)}${'-----END A '.repeat(size / 11)}`],
    ['email', 'dotted words', 'a.'.repeat(size / 2)],
    ['email', 'an @ then dotted words', `a@${'a.'.repeat(size / 2)}`],
    ['phone', 'spaced digits', '1 '.repeat(size / 2)],
  ];

  it.each(cases)('%s on %s takes linear time', { timeout: 60_000 }, (detector, _what, text) => {
    const run = timed(() => findMatches(BUILTIN_DETECTORS[detector], text));
    expect(run.ms).toBeLessThan(LIMIT_MS);
  });

  it('secrets redaction of a hostile tool result takes linear time', { timeout: 60_000 }, () => {
    const text = `token:${' '.repeat(size)}\nAuthorization: Bearer ${'eyJ-'.repeat(size / 4)}`;
    expect(timed(() => redactSecrets(text)).ms).toBeLessThan(LIMIT_MS);
  });
});
