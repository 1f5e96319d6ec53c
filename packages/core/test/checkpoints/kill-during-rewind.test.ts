import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/checkpoints/index.js';
import { makeHarness, tempDir } from './harness.js';
import { mkdirSync, writeFileSync } from 'node:fs';

const child = fileURLToPath(new URL('./fixtures/rewind-child.mjs', import.meta.url));
const FILES = 300;
const oldContent = (index: number) => `old ${index}\n`.repeat(4000);
const newContent = (index: number) => `new ${index}\n`.repeat(4000);

describe('a rewind killed with SIGKILL', () => {
  it('leaves every file in its old or its new state, never half, and a second rewind finishes the job', async () => {
    const root = tempDir('beans-ws-');
    mkdirSync(path.join(root, 'files'));
    for (let index = 0; index < FILES; index++) writeFileSync(path.join(root, 'files', `f${index}.txt`), oldContent(index));
    const workspace = { root, cwd: root, isGit: false };
    const h = makeHarness(workspace);
    await h.turn('u1', [{ name: 'shell', arguments: { command: 'sed -i s/^old/new/ files/*.txt' } }]);
    expect(readFileSync(path.join(root, 'files', 'f7.txt'), 'utf8')).toBe(newContent(7));

    // Kill the child a moment after it starts rewinding, with some files written and others not.
    const output = await new Promise<string>((resolve, reject) => {
      const proc = spawn(process.execPath, ['--experimental-transform-types', '--no-warnings', child, h.storeDir, root, 'u1'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let stderr = '';
      proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      proc.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        // Wait for the first restored file, then kill.
        if (out.includes('started') && !proc.killed) {
          const timer = setInterval(() => {
            let restored = false;
            try {
              restored = readFileSync(path.join(root, 'files', 'f0.txt'), 'utf8') === oldContent(0);
            } catch {
              // between unlink and rename on other systems; try again
            }
            if (restored || proc.exitCode !== null || proc.killed) {
              clearInterval(timer);
              proc.kill('SIGKILL');
            }
          }, 1);
        }
      });
      proc.on('error', reject);
      proc.on('exit', () => (stderr && !out.includes('started') ? reject(new Error(stderr)) : resolve(out)));
    });
    expect(output).toContain('started');

    let old = 0;
    for (let index = 0; index < FILES; index++) {
      const content = readFileSync(path.join(root, 'files', `f${index}.txt`), 'utf8');
      expect([oldContent(index), newContent(index)]).toContain(content);
      if (content === oldContent(index)) old++;
    }
    // Killed in the middle: some files were put back, others not yet.
    expect(old).toBeGreaterThan(0);
    expect(old).toBeLessThan(FILES);
    // No temporary file is left where the user would see it... except at most the one being written.
    expect(readdirSync(path.join(root, 'files')).filter((name) => name.includes('beans-tmp')).length).toBeLessThanOrEqual(1);

    const again = await new CheckpointStore({ dir: h.storeDir, workspace }).rewind('u1', { force: true });
    expect(again.failed).toEqual([]);
    for (let index = 0; index < FILES; index++) expect(readFileSync(path.join(root, 'files', `f${index}.txt`), 'utf8')).toBe(oldContent(index));
  });
});
