import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globTool } from '../../src/tools/glob.js';
import { grepTool } from '../../src/tools/grep.js';
import { listDirectoryTool } from '../../src/tools/list-directory.js';
import { readFileTool } from '../../src/tools/read-file.js';
import type { AnyTool } from '../../src/tools/tool.js';
import { makeContext, makeOutsideDir, makeWorkspace, run } from './helpers.js';

/**
 * Issue 43 item 6: a process in the workspace swaps a folder for a symlink to a folder outside,
 * back and forth, while the model reads in it. The read tools checked the path and then opened it
 * by name, so about one read in four returned the outside file. Not a byte from outside may reach a
 * result: not a file's content, not a file name.
 */
const SWAPPER = `
const fs = require('node:fs');
const [dir, parked, outside, stopFile] = process.argv.slice(1);
const dwell = () => { const until = process.hrtime.bigint() + 200_000n; while (process.hrtime.bigint() < until); };
const end = Date.now() + 60_000;
while (Date.now() < end && !fs.existsSync(stopFile)) {
  try { fs.renameSync(dir, parked); fs.symlinkSync(outside, dir); } catch {}
  dwell();
  try { fs.unlinkSync(dir); fs.renameSync(parked, dir); } catch {}
  dwell();
}
`;

// No input names the canary word, so a result holding it can only have read it from outside.
const OTHER_READS: [AnyTool, Record<string, unknown>][] = [
  [readFileTool, { path: 'sub/f.txt', offset: 2, limit: 1 }],
  [grepTool, { pattern: 'alpha|beta', path: 'sub' }],
  [grepTool, { pattern: 'beta|alpha', path: 'sub/f.txt' }],
  [globTool, { pattern: 'sub/*' }],
  [globTool, { pattern: '**/*.txt', path: 'sub' }],
  [listDirectoryTool, { path: 'sub' }],
  [listDirectoryTool, {}],
];

describe('reads under a folder swapped for a symlink (issue 43 item 6)', () => {
  it('never return a byte from outside the workspace: 300 read_file calls, and as many of the other read tools', { timeout: 60_000 }, async () => {
    const ws = makeWorkspace({ 'sub/f.txt': 'alpha\nbeta\n', 'sub/inner/g.txt': 'alpha\n' }, { git: true });
    const outsideDir = makeOutsideDir();
    writeFileSync(path.join(outsideDir, 'f.txt'), 'alpha OUTSIDE-SECRET\nbeta OUTSIDE-SECRET\n');
    writeFileSync(path.join(outsideDir, 'SECRET-name.txt'), 'alpha\n');
    const stopFile = path.join(outsideDir, '..', `${path.basename(outsideDir)}.stop`);
    const swapper = spawn(process.execPath, ['-e', SWAPPER, path.join(ws.root, 'sub'), path.join(ws.root, '.parked'), outsideDir, stopFile], {
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => swapper.on('exit', resolve));
    const leaked: string[] = [];
    let ok = 0;
    try {
      for (let round = 0; round < 300; round++) {
        for (const [tool, input] of [[readFileTool, { path: 'sub/f.txt' }], OTHER_READS[round % OTHER_READS.length]!] as const) {
          const result = await run(tool, input, makeContext(ws));
          if (!result.isError) ok++;
          const text = JSON.stringify(result);
          if (text.includes('SECRET')) leaked.push(`${tool.name} ${JSON.stringify(input)}: ${text.slice(0, 300)}`);
        }
      }
    } finally {
      writeFileSync(stopFile, '');
      await exited;
    }
    expect(leaked.slice(0, 5)).toEqual([]);
    // Reads still work whenever they catch the real folder (about one in five under this swap rate).
    expect(ok).toBeGreaterThan(50);
  });
});
