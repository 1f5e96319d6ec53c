import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { searchInWorker } from '../../src/tools/grep-worker.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function files(content: Record<string, string>): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'beans-grep-worker-'));
  for (const [name, text] of Object.entries(content)) writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('the JavaScript grep engine runs in a worker', () => {
  it('finds matches with line numbers', async () => {
    const root = files({ 'a.txt': 'one\ntwo\nthree two\n' });
    const found: [string, number, string][] = [];
    await searchInWorker(
      { root, paths: ['a.txt'], pattern: 'two', flags: '', signal: new AbortController().signal },
      (file, line, text) => found.push([file, line, text]) > 0,
    );
    expect(found).toEqual([
      ['a.txt', 2, 'two'],
      ['a.txt', 3, 'three two'],
    ]);
  });

  it('stops a catastrophic regex at its deadline with an error the model can act on', async () => {
    const root = files({ 'a.txt': `${'a'.repeat(36)}!\n` });
    const started = Date.now();
    await expect(
      searchInWorker({ root, paths: ['a.txt'], pattern: '(a+)+$', flags: '', signal: new AbortController().signal, deadlineMs: 300 }, () => true),
    ).rejects.toThrow(/took longer than 0.3s and was stopped; it backtracks catastrophically/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('stops at once when aborted (Ctrl+C)', async () => {
    const root = files({ 'a.txt': `${'a'.repeat(36)}!\n` });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(searchInWorker({ root, paths: ['a.txt'], pattern: '(a+)+$', flags: '', signal: controller.signal }, () => true)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
