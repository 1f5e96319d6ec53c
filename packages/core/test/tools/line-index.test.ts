import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINE_INDEX_STEP, LineIndex, lineIndexFor } from '../../src/tools/line-index.js';
import { readLineWindow } from '../../src/tools/line-window.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

const signal = new AbortController().signal;

/** Lines of varied width, with multi-byte characters and CRLF endings, so byte positions are not line-number arithmetic. */
const fileLines = Array.from({ length: 25_000 }, (_, i) => `line ${i + 1} ${'é'.repeat(i % 7)}${'x'.repeat(i % 13)}`);
const text = fileLines.map((line, i) => (i % 3 === 0 ? `${line}\r\n` : `${line}\n`)).join('');

describe('a read_file window deep in a file', () => {
  it('starts from the nearest line an earlier read saw, and is the same window as a scan from the top', async () => {
    const ws = makeWorkspace({ 'big.txt': text });
    const file = path.join(ws.root, 'big.txt');
    const read = (offset: number, index?: LineIndex) =>
      readLineWindow(file, { offset, maxLines: 5, maxChars: 1e6, maxLineChars: 2000, countAll: false, signal, index });
    const index = new LineIndex('test');
    await read(24_000, index);
    expect(index.nearest(24_000).line).toBe(23 * LINE_INDEX_STEP + 1);
    expect(index.nearest(24_000).byte).toBe(Buffer.byteLength(text.split('\n').slice(0, 23_000).join('\n')) + 1);
    for (const offset of [1, 999, 1000, 1001, 1002, 17_345, 23_001, 24_999, 25_000]) {
      const fromTop = await read(offset);
      const indexed = await read(offset, index);
      expect(indexed.lines).toEqual(fileLines.slice(offset - 1, offset + 4));
      expect(indexed.lines).toEqual(fromTop.lines);
    }
  });

  it('really seeks: a remembered line start is where the scan begins', async () => {
    const ws = makeWorkspace({ 'big.txt': text });
    const file = path.join(ws.root, 'big.txt');
    const index = new LineIndex('test');
    // A planted (wrong) start for line 1001 shows the scan trusts the index instead of rereading from byte 0.
    index.record(
      LINE_INDEX_STEP + 1,
      Buffer.byteLength(
        fileLines
          .slice(0, 2_000)
          .map((l, i) => (i % 3 === 0 ? `${l}\r\n` : `${l}\n`))
          .join(''),
      ),
    );
    const result = await readLineWindow(file, { offset: LINE_INDEX_STEP + 1, maxLines: 1, maxChars: 1e6, maxLineChars: 2000, countAll: false, signal, index });
    expect(result.lines).toEqual([fileLines[2_000]]);
  });

  it('read_file keeps one index per file version and reports the known line count without recounting', async () => {
    const ws = makeWorkspace({ 'big.txt': text });
    const file = path.join(ws.root, 'big.txt');
    const context = makeContext(ws);
    const first = await run(readFileTool, { path: 'big.txt', offset: 20_000, limit: 2 }, context);
    expect(first.content).toContain('[Lines 20000-20001 of 25000 shown. Read on with offset: 20002.]');
    const index = lineIndexFor(file, statSync(file));
    expect(index.totalLines).toBe(25_000);
    expect(index.nearest(20_000).line).toBe(19_001);
    const again = await run(readFileTool, { path: 'big.txt', offset: 24_999, limit: 5 }, context);
    expect(again.content).toBe(`24999\t${fileLines[24_998]}\n25000\t${fileLines[24_999]}\n\n[Lines 24999-25000 of 25000 shown.]`);
    // A write makes a new version: the old positions are forgotten, and the new text is read correctly.
    writeFileSync(file, `changed\n${text}`);
    const changed = await run(readFileTool, { path: 'big.txt', offset: 20_000, limit: 1 }, context);
    expect(changed.content.split('\n')[0]).toBe(`20000\t${fileLines[19_998]}`);
    expect(lineIndexFor(file, statSync(file)).totalLines).toBe(25_001);
  });
});
