import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const CORE = path.resolve(import.meta.dirname, '../..');
const EXAMPLE = path.join(CORE, 'examples', 'library.mjs');
let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the library guide', () => {
  it("the guide's example (docs/library.md) is the file the test runs", () => {
    const guide = readFileSync(path.join(CORE, '../../docs/library.md'), 'utf8');
    const block = /```js\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block).toBe(readFileSync(EXAMPLE, 'utf8'));
  });

  it('runs: a provider registered in code, a write approved by canUseTool, a success result', () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-example-')));
    const repo = path.join(root, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const home = path.join(root, 'home');
    const output = execFileSync(process.execPath, [EXAMPLE, repo], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.state') },
    });
    expect(output).toBe('assistant: WROTE IT: Created shout.txt (1 line, 6 B).\nresult: success, 2 turns\n');
    expect(readFileSync(path.join(repo, 'shout.txt'), 'utf8')).toBe('HELLO\n');
  });
});
