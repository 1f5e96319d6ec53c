import { describe, expect, test } from 'vitest';
import { MarkdownStream, parseInline, renderMarkdown } from '../../src/ui/markdown.js';
import { displayWidth, lineText, lineWidth, type StyledLine } from '../../src/ui/styled.js';

const texts = (lines: StyledLine[]) => lines.map(lineText);

describe('inline Markdown', () => {
  test('bold, italic, inline code and links lose their markers and keep their style', () => {
    const spans = parseInline('a **bold** and *it* with `x = 1` see [docs](https://x.dev)');
    expect(spans.map((part) => part.text).join('')).toBe('a bold and it with x = 1 see docs (https://x.dev)');
    expect(spans.find((part) => part.text === 'bold')?.style?.bold).toBe(true);
    expect(spans.find((part) => part.text === 'it')?.style?.italic).toBe(true);
    expect(spans.find((part) => part.text === 'x = 1')?.style?.color).toBe('yellow');
    expect(spans.find((part) => part.text === 'docs')?.style?.underline).toBe(true);
  });

  test('snake_case words, lone stars and unclosed markers stay as typed', () => {
    const plain = (text: string) =>
      parseInline(text)
        .map((part) => part.text)
        .join('');
    expect(plain('call my_func_name now')).toBe('call my_func_name now');
    expect(plain('2 * 3 * 4')).toBe('2 * 3 * 4');
    expect(plain('an **unfinished thought')).toBe('an **unfinished thought');
    expect(plain('escaped \\*star\\*')).toBe('escaped *star*');
  });
});

describe('block Markdown', () => {
  test('headings, lists, quotes and rules are drawn for the terminal', () => {
    const out = texts(renderMarkdown('# Title\n- one\n  - nested\n1. first\n- [x] done\n> quoted\n---', 40));
    expect(out).toEqual(['Title', '• one', '  ◦ nested', '1. first', '☑ done', '▎ quoted', '─'.repeat(40)]);
  });

  test('a fenced code block is framed, keeps its spacing and ignores Markdown inside', () => {
    const out = texts(renderMarkdown('```ts\nconst a  =  **1**;\n\n  indented\n```\nafter', 40));
    expect(out).toEqual(['╭─ ts', 'const a  =  **1**;', '', '  indented', '╰─', 'after']);
  });

  test('long lines wrap at the width, list items under their bullet', () => {
    const out = renderMarkdown('- alpha beta gamma delta epsilon zeta eta theta', 20);
    expect(texts(out)).toEqual(['• alpha beta gamma', '  delta epsilon zeta', '  eta theta']);
    for (const line of out) expect(lineWidth(line)).toBeLessThanOrEqual(20);
  });

  test('wide characters count as two columns when wrapping', () => {
    const out = renderMarkdown('漢字漢字漢字漢字漢字漢字', 10);
    for (const line of out) expect(displayWidth(lineText(line))).toBeLessThanOrEqual(10);
    expect(out.length).toBe(3);
  });
});

describe('streaming', () => {
  test('finished lines are committed once; the unfinished line is only previewed', () => {
    const stream = new MarkdownStream(40);
    expect(stream.push('# Head')).toEqual([]);
    expect(texts(stream.tail())).toEqual(['Head']);
    expect(texts(stream.push('ing\nsome **bo'))).toEqual(['Heading']);
    expect(texts(stream.tail())).toEqual(['some **bo']);
    expect(texts(stream.push('ld** text\n'))).toEqual(['some bold text']);
    expect(texts(stream.end())).toEqual([]);
  });

  test('blank lines between paragraphs survive, but none lead or trail the answer', () => {
    const stream = new MarkdownStream(40);
    const out = [...stream.push('\n\nfirst\n\n\nsecond\n\n'), ...stream.end()];
    expect(texts(out)).toEqual(['first', '', 'second']);
  });

  test('a code block still open when the stream ends gets its closing border', () => {
    const stream = new MarkdownStream(40);
    const out = [...stream.push('```\ncode line\n'), ...stream.end()];
    expect(texts(out)).toEqual(['╭─ code', 'code line', '╰─']);
  });

  test('3,000 lines stream in well under a second', () => {
    const stream = new MarkdownStream(100);
    const started = performance.now();
    let rows = 0;
    for (let index = 0; index < 3000; index++) {
      const line = index % 50 === 0 ? `## Section ${index}\n` : `- item ${index} with **bold** and \`code\` and a longer tail of words\n`;
      for (let at = 0; at < line.length; at += 7) rows += stream.push(line.slice(at, at + 7)).length;
      stream.tail();
    }
    rows += stream.end().length;
    expect(rows).toBeGreaterThanOrEqual(3000);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
