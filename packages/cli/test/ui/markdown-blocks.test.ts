import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createFakeHost } from './fake-host.js';
import { closeChats, startChat } from './harness.js';
import { loadHighlighter } from '../../src/ui/highlight.js';
import { MarkdownStream, renderMarkdown } from '../../src/ui/markdown.js';
import { renderTable } from '../../src/ui/markdown-table.js';
import { displayWidth, lineText, type StyledLine } from '../../src/ui/styled.js';

const texts = (lines: StyledLine[]) => lines.map(lineText);

describe('Markdown tables', () => {
  test('columns are aligned to the widest cell, with a header rule and the alignment of the separator row', () => {
    const out = texts(renderTable(['| name | count |', '|:-----|------:|', '| apples | 3 |', '| kiwi | 12 |'], 80));
    expect(out).toEqual(['┌────────┬───────┐', '│ name   │ count │', '├────────┼───────┤', '│ apples │     3 │', '│ kiwi   │    12 │', '└────────┴───────┘']);
  });

  test('a table wider than the terminal wraps its cells inside their columns', () => {
    const long = 'a long description that certainly does not fit next to the other column';
    const out = texts(renderTable(['| key | description |', '|---|---|', `| alpha | ${long} |`], 40));
    for (const row of out) expect(displayWidth(row)).toBeLessThanOrEqual(40);
    const body = out.slice(3, -1);
    expect(body.length).toBeGreaterThan(1);
    expect(body[0]).toMatch(/^│ alpha │ a long description/);
    // Every row has its borders in the same columns.
    const borders = (row: string) => [...row].flatMap((char, index) => (char === '│' ? [index] : []));
    for (const row of body) expect(borders(row)).toEqual(borders(body[0]!));
    expect(body.map((row) => row.split('│')[2]!.trim()).join(' ')).toBe(long);
  });

  test('inline Markdown inside cells loses its markers; escaped pipes stay in the cell', () => {
    const out = texts(renderTable(['| a | b |', '|---|---|', '| **bold** | x \\| y |'], 80));
    expect(out[3]).toBe('│ bold │ x | y │');
  });

  test('a streamed table is previewed as it grows and committed once it ends', () => {
    const stream = new MarkdownStream(60);
    expect(stream.push('Intro\n| a | b |\n|---|---|\n| 1 | 2 |\n')).toEqual([expect.anything()]);
    expect(texts(stream.tail())).toContain('│ 1 │ 2 │');
    const rest = texts([...stream.push('| 333 | 4 |\nAfter\n'), ...stream.end()]);
    expect(rest).toEqual(['┌─────┬───┐', '│ a   │ b │', '├─────┼───┤', '│ 1   │ 2 │', '│ 333 │ 4 │', '└─────┴───┘', 'After']);
  });
});

describe('code blocks', () => {
  beforeAll(() => loadHighlighter());

  test('code is highlighted by its language: keywords, strings and comments get colours', () => {
    const out = renderMarkdown('```ts\nconst name = "beans"; // greet\nfunction f() { return 1; }\n```', 80);
    expect(texts(out)).toEqual(['╭─ ts', 'const name = "beans"; // greet', 'function f() { return 1; }', '╰─']);
    const colorOf = (text: string) => out.flat().find((part) => part.text === text)?.style?.color;
    expect(colorOf('const')).toBe('magenta');
    expect(colorOf('"beans"')).toBe('green');
    expect(colorOf('// greet')).toBe('gray');
    expect(colorOf('1')).toBe('yellow');
  });

  test('a multi-line string or comment keeps its colour on every line', () => {
    const out = renderMarkdown('```python\ns = """one\ntwo"""\n```', 80);
    const two = out[2]!.find((part) => part.text.includes('two'));
    expect(two?.style?.color).toBe('green');
  });

  test('an unknown language, or none, is not highlighted: one colour marks the code, and nothing precedes it', () => {
    for (const fence of ['```', '```nosuchlang']) {
      const out = renderMarkdown(`${fence}\nconst x = 1;\n\`\`\``, 80);
      expect(out[1]).toEqual([{ text: 'const x = 1;', style: { color: 'cyan' } }]);
    }
  });

  test('while a block streams its lines show plain; the closing fence commits it highlighted', () => {
    const stream = new MarkdownStream(80);
    expect(texts(stream.push('```js\nlet a = 1;\n'))).toEqual(['╭─ js']);
    expect(texts(stream.tail())).toEqual(['let a = 1;']);
    const closed = stream.push('```\n');
    expect(texts(closed)).toEqual(['let a = 1;', '╰─']);
    expect(closed[0]!.find((part) => part.text === 'let')?.style?.color).toBe('magenta');
  });
});

describe('in the chat', () => {
  const cleanups: (() => void)[] = [];
  afterEach(async () => {
    await closeChats();
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  // Ink (and its chalk) load at the first chat of this file: with colour forced, escapes show in frames.
  beforeAll(() => {
    process.env.FORCE_COLOR = '1';
  });
  const answer = '| lang | files |\n|---|---:|\n| ts | 12 |\n\n```ts\nconst a = "x";\n```\ndone';

  test('tables and highlighted code reach the screen; NO_COLOR keeps them plain', async () => {
    await loadHighlighter();
    for (const noColor of [false, true]) {
      const fake = createFakeHost({ turns: [{ chunks: [answer] }] });
      cleanups.push(fake.cleanup);
      const chat = startChat(fake.host, { noColor });
      await chat.submit('show');
      const frame = await chat.waitForText('done');
      expect(frame).toContain('│ ts   │    12 │');
      expect(frame).toMatch(/^const a = "x";$/m);
      // Colour escapes (30-37, 90-97, 256 and true colour) appear only when colour is allowed.
      const coloured = /\x1b\[(3[0-7]|9[0-7]|38;)/.test(chat.rawFrame().split('╭─ ts')[1] ?? '');
      expect(coloured).toBe(!noColor);
      await chat.close();
    }
  });
});
