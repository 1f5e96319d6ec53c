import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolInputError } from '../../src/errors.js';
import { editFileTool } from '../../src/tools/edit-file.js';
import { writeFileAtomic } from '../../src/tools/file-io.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { makeContext, makeOutsideDir, makeWorkspace, run } from './helpers.js';

/**
 * Finding 9 of issue 11: a process in the workspace swaps a folder for a symlink to a folder
 * outside, back and forth, as fast as it can, while the model writes and edits a file in that
 * folder. Checking the path first and opening it later let 56 of 22,708 writes land outside.
 */
const SWAPPER = `
const fs = require('node:fs');
const [dir, parked, outside, millis, stop] = process.argv.slice(1);
const end = Date.now() + Number(millis);
// Each state lasts a little while, so checks and uses of the path fall into different states.
const dwell = () => { const until = process.hrtime.bigint() + 200_000n; while (process.hrtime.bigint() < until); };
while (Date.now() < end && !fs.existsSync(stop)) {
  try { fs.renameSync(dir, parked); fs.symlinkSync(outside, dir); } catch {}
  dwell();
  try { fs.unlinkSync(dir); fs.renameSync(parked, dir); } catch {}
  dwell();
}
`;

const MIN_CALLS = 240;
const RACE_LIMIT_MS = 45_000;

/** Files outside with the names the model writes: a read through the swapped folder would find them. */
const CANARIES = { 'f.txt': 'alpha OUTSIDE-SECRET\n', 'new.txt': 'OUTSIDE-SECRET\n' };

async function race(options: { git: boolean; millis: number }): Promise<{ outside: Record<string, string>; calls: number; ok: number; leaked: string[] }> {
  const ws = makeWorkspace({ 'sub/f.txt': 'alpha\n' }, { git: options.git });
  const outsideDir = makeOutsideDir();
  for (const [name, content] of Object.entries(CANARIES)) writeFileSync(path.join(outsideDir, name), content);
  const leaked: string[] = [];
  const dir = path.join(ws.root, 'sub');
  // The race lasts `millis` and at least MIN_CALLS calls (a loaded machine makes fewer a second), at most
  // RACE_LIMIT_MS: the swapper spins one core, so a suite running beside it can slow the calls tenfold.
  const stop = path.join(makeOutsideDir(), 'stop');
  const swapper = spawn(process.execPath, ['-e', SWAPPER, dir, path.join(ws.root, '.parked'), outsideDir, String(RACE_LIMIT_MS), stop], { stdio: 'ignore' });
  const exited = new Promise((resolve) => swapper.on('exit', resolve));
  let calls = 0;
  let ok = 0;
  const started = Date.now();
  try {
    while ((Date.now() < started + options.millis || calls < MIN_CALLS) && Date.now() < started + RACE_LIMIT_MS) {
      const ctx = makeContext(ws);
      const write = await run(writeFileTool, { path: 'sub/f.txt', content: `alpha ${calls}\n` }, ctx);
      const append = await run(writeFileTool, { path: 'sub/new.txt', content: 'x\n', append: true }, ctx);
      const edit = await run(editFileTool, { path: 'sub/f.txt', old_string: 'alpha', new_string: 'beta' }, makeContext(ws));
      const nested = await run(writeFileTool, { path: 'sub/deep/er/g.txt', content: 'g\n' }, ctx);
      calls += 4;
      ok += [write, append, edit, nested].filter((r) => !r.isError).length;
      for (const result of [write, append, edit, nested])
        if (JSON.stringify(result).includes('OUTSIDE-SECRET')) leaked.push(JSON.stringify(result).slice(0, 200));
    }
  } finally {
    writeFileSync(stop, '');
    await exited;
  }
  for (const file of ['sub/f.txt', 'sub/new.txt']) {
    const inside = existsSync(path.join(ws.root, file)) ? readFileSync(path.join(ws.root, file), 'utf8') : '';
    if (inside.includes('OUTSIDE-SECRET')) leaked.push(`${file} in the workspace holds outside content`);
  }
  const outside = Object.fromEntries(readdirSync(outsideDir).map((name) => [name, readFileSync(path.join(outsideDir, name), 'utf8')]));
  return { outside, calls, ok, leaked };
}

describe('writes under a folder swapped for a symlink (finding 9)', () => {
  it('never land outside the workspace, in a git workspace', { timeout: 60_000 }, async () => {
    const result = await race({ git: true, millis: 6_000 });
    expect(result.calls).toBeGreaterThan(200);
    expect(result.ok).toBeGreaterThan(0);
    expect(result.outside).toEqual(CANARIES);
    expect(result.leaked).toEqual([]);
  });

  it('never land outside the workspace, outside git (temporary file beside the target)', { timeout: 60_000 }, async () => {
    const result = await race({ git: false, millis: 6_000 });
    expect(result.calls).toBeGreaterThan(200);
    expect(result.ok).toBeGreaterThan(0);
    expect(result.outside).toEqual(CANARIES);
    expect(result.leaked).toEqual([]);
  });

  it('refuses a write whose folder became a link after the path was checked, creating nothing outside', async () => {
    const ws = makeWorkspace({ 'sub/f.txt': 'alpha\n' }, { git: true });
    const outsideDir = makeOutsideDir();
    const checked = path.join(ws.root, 'sub', 'deep', 'g.txt');
    renameSync(path.join(ws.root, 'sub'), path.join(ws.root, 'parked'));
    symlinkSync(outsideDir, path.join(ws.root, 'sub'));
    const write = writeFileAtomic(checked, 'g\n', undefined, { root: ws.root, tempDir: path.join(ws.root, '.git', 'beans-tmp') });
    await expect(write).rejects.toThrow(ToolInputError);
    await expect(write).rejects.toThrow(/changed while writing/);
    expect(readdirSync(outsideDir)).toEqual([]);
    const tempDir = path.join(ws.root, '.git', 'beans-tmp');
    expect(existsSync(tempDir) ? readdirSync(tempDir) : []).toEqual([]);
  });

  it('still writes through a folder that is a real folder inside the workspace', async () => {
    const ws = makeWorkspace({}, { git: false });
    mkdirSync(path.join(ws.root, 'a'));
    await writeFileAtomic(path.join(ws.root, 'a', 'b', 'c.txt'), 'c\n', undefined, { root: ws.root });
    expect(readdirSync(path.join(ws.root, 'a', 'b'))).toEqual(['c.txt']);
  });
});
