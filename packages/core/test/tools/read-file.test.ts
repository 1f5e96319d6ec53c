import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileTool } from '../../src/tools/read-file.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('read_file', () => {
  it('returns numbered lines and records the mtime it saw', async () => {
    const ws = makeWorkspace({ 'a.txt': 'alpha\r\nbeta\n' });
    const ctx = makeContext(ws);
    const result = await run(readFileTool, { path: 'a.txt' }, ctx);
    expect(result).toEqual({ content: '1\talpha\n2\tbeta' });
    const file = path.join(ws.root, 'a.txt');
    expect(ctx.state.fileTimes.get(file)).toBe(statSync(file).mtimeMs);
  });

  it('reads 2000 lines by default and says how to read on', async () => {
    const ws = makeWorkspace({ 'big.txt': lines(2500) });
    const result = await run(readFileTool, { path: 'big.txt' }, makeContext(ws));
    expect(result.content).toContain('2000\tline 2000');
    expect(result.content).not.toContain('line 2001');
    expect(result.content).toContain('[Lines 1-2000 of 2500 shown. Read on with offset: 2001.]');
  });

  it('reads a window with offset and limit', async () => {
    const ws = makeWorkspace({ 'big.txt': lines(2500) });
    const result = await run(readFileTool, { path: 'big.txt', offset: 2498, limit: 10 }, makeContext(ws));
    expect(result.content).toBe('2498\tline 2498\n2499\tline 2499\n2500\tline 2500\n\n[Lines 2498-2500 of 2500 shown.]');
  });

  it('refuses an offset past the end', async () => {
    const ws = makeWorkspace({ 'a.txt': lines(3) });
    const result = await run(readFileTool, { path: 'a.txt', offset: 10 }, makeContext(ws));
    expect(result).toMatchObject({ isError: true, content: 'offset 10 is past the end of a.txt, which has 3 lines.' });
  });

  it('cuts very long lines and says how much was left out', async () => {
    const ws = makeWorkspace({ 'min.js': `${'x'.repeat(5000)}\nshort\n` });
    const result = await run(readFileTool, { path: 'min.js' }, makeContext(ws));
    expect(result.content).toContain(`1\t${'x'.repeat(2000)}… [line cut: 3,000 more bytes]`);
    expect(result.content).toContain('2\tshort');
  });

  it('stops before the output grows past what the model can take, and says where to go on', async () => {
    const ws = makeWorkspace({ 'wide.txt': Array.from({ length: 1000 }, () => 'y'.repeat(200)).join('\n') });
    const result = await run(readFileTool, { path: 'wide.txt' }, makeContext(ws));
    expect(result.content.length).toBeLessThan(40_000);
    expect(result.content).toMatch(/\[Lines 1-\d+ of 1000 shown \(output size limit reached\)\. Read on with offset: \d+\.\]/);
  });

  it('refuses a binary file with a clear message', async () => {
    // An executable: a binary that is not a picture, a PDF or a notebook (issue 41 made those readable).
    const ws = makeWorkspace({ 'tool.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0]) });
    const result = await run(readFileTool, { path: 'tool.bin' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('tool.bin looks like a binary file');
    expect(result.content).toContain('read_file only reads text');
  });

  it('refuses to read a huge file whole but reads a window of it', async () => {
    const ws = makeWorkspace({ 'huge.log': `${'0123456789'.repeat(10)}\n`.repeat(110_000) });
    const whole = await run(readFileTool, { path: 'huge.log' }, makeContext(ws));
    expect(whole.isError).toBe(true);
    expect(whole.content).toMatch(/huge\.log is 10\.\d MB, too large to read whole/);
    expect(whole.content).toContain('offset and limit');
    const window = await run(readFileTool, { path: 'huge.log', offset: 5, limit: 2 }, makeContext(ws));
    expect(window.isError).toBeFalsy();
    expect(window.content).toContain('5\t0123456789');
    expect(window.content).toContain('Read on with offset: 7');
  });

  it('says an empty file is empty', async () => {
    const ws = makeWorkspace({ 'empty.txt': '' });
    expect((await run(readFileTool, { path: 'empty.txt' }, makeContext(ws))).content).toBe('(empty.txt is empty)');
  });

  it('points from a directory to list_directory and from a missing file to near names', async () => {
    const ws = makeWorkspace({ 'src/index.ts': '' });
    const dir = await run(readFileTool, { path: 'src' }, makeContext(ws));
    expect(dir).toMatchObject({ isError: true });
    expect(dir.content).toContain('list_directory');
    const missing = await run(readFileTool, { path: 'src/Index.ts' }, makeContext(ws));
    expect(missing.content).toBe('File not found: src/Index.ts. Did you mean src/index.ts?');
  });

  it('reads a file without a trailing newline completely', async () => {
    const ws = makeWorkspace({ 'a.txt': 'one\ntwo' });
    expect((await run(readFileTool, { path: 'a.txt' }, makeContext(ws))).content).toBe('1\tone\n2\ttwo');
  });
});
