import { describe, expect, test } from 'vitest';
import { renderDiff } from '../../src/ui/diff-view.js';
import { lineText, lineWidth } from '../../src/ui/styled.js';
import { renderTodos } from '../../src/ui/tool-view.js';

const DIFF = [
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -9,3 +9,3 @@',
  ' const a = 1;',
  '-const b = 2;',
  '+const b = 3;',
  ' const c = 4;',
  '@@ -40,1 +40,2 @@',
  ' end',
  '+added',
  '',
].join('\n');

describe('diff rendering', () => {
  test('rows carry line numbers and signs; headers are dropped; hunks are separated', () => {
    const rows = renderDiff(DIFF, 80).map(lineText);
    expect(rows).toEqual(['  9   const a = 1;', ' 10 - const b = 2;', ' 10 + const b = 3;', ' 11   const c = 4;', '    ⋯', ' 40   end', ' 41 + added']);
  });

  test('added rows are green, removed rows red', () => {
    const rows = renderDiff(DIFF, 80);
    const rowWith = (text: string) => rows.find((row) => lineText(row).includes(text))!;
    expect(
      rowWith('+ const b = 3;')
        .slice(2)
        .every((part) => part.style?.color === 'green'),
    ).toBe(true);
    expect(
      rowWith('- const b = 2;')
        .slice(2)
        .every((part) => part.style?.color === 'red'),
    ).toBe(true);
    expect(
      rowWith('+ added')
        .slice(2)
        .every((part) => part.style?.color === 'green' && !part.style.inverse),
    ).toBe(true);
  });

  test('a line changed in place marks the words that changed; a rewritten line does not', () => {
    const rows = renderDiff(DIFF, 80);
    const marked = (sign: string) =>
      rows
        .find((row) => lineText(row).includes(`${sign} const b`))!
        .filter((part) => part.style?.inverse)
        .map((part) => part.text);
    expect(marked('-')).toEqual(['2']);
    expect(marked('+')).toEqual(['3']);
    const rewrite = renderDiff('@@ -1,1 +1,1 @@\n-alpha beta gamma\n+completely other words', 80);
    expect(rewrite.flat().some((part) => part.style?.inverse)).toBe(false);
  });

  test('long rows wrap inside the width, under the code column', () => {
    const long = `@@ -1,1 +1,1 @@\n+${'x'.repeat(100)}`;
    const rows = renderDiff(long, 40, '  ');
    for (const row of rows) expect(lineWidth(row)).toBeLessThanOrEqual(40);
    expect(rows.length).toBe(4);
    for (const row of rows.slice(1)) expect(lineText(row)).toMatch(/^ {8}x+$/);
  });
});

describe('todo checklist', () => {
  test('each status has its own mark', () => {
    const rows = renderTodos(
      [
        { content: 'Read the code', status: 'completed' },
        { content: 'Fix the bug', status: 'in_progress' },
        { content: 'Add a test', status: 'pending' },
      ],
      60,
    ).map(lineText);
    expect(rows).toEqual(['☑ Read the code', '◐ Fix the bug', '☐ Add a test']);
  });
});
