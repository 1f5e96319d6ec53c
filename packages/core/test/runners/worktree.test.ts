// Where a background session works (issue 56): a clone of origin on beans/<id>; each change committed
// with its patch, which a runner taking the session over applies on top of the pushed branch.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Worktrees } from '../../src/runners/worktree.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function origin() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-worktree-')));
  roots.push(root);
  const source = path.join(root, 'source');
  execFileSync('git', ['init', '-q', source]);
  writeFileSync(path.join(source, 'README.md'), '# start\n');
  git(source, 'add', '-A');
  git(source, '-c', 'user.name=a', '-c', 'user.email=a@a', 'commit', '-qm', 'start');
  const bare = path.join(root, 'origin.git');
  execFileSync('git', ['clone', '-q', '--bare', source, bare]);
  const session = { id: 's1', origin: bare, baseCommit: git(source, 'rev-parse', 'HEAD'), branch: 'beans/s1' };
  const runner = (name: string) => new Worktrees(path.join(root, name), { name: `runner ${name}`, email: `${name}@example.com` });
  return { root, bare, session, runner };
}

describe('a session worktree', () => {
  it('commits each change with its patch; another runner gets the files back from the patches alone', async () => {
    const { bare, session, runner } = origin();
    const first = await runner('r1').prepare(session);
    expect(git(first.dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('beans/s1');
    writeFileSync(path.join(first.dir, 'a.txt'), 'a\n');
    const one = await first.capture('beans: write_file (c1)');
    expect(one?.patch).toContain('+a');
    // The model commits by itself, then changes another file: both are in the next change.
    writeFileSync(path.join(first.dir, 'b.bin'), Buffer.from([0, 1, 2, 255]));
    git(first.dir, 'add', '-A');
    git(first.dir, '-c', 'user.name=m', '-c', 'user.email=m@m', 'commit', '-qm', 'model commit');
    writeFileSync(path.join(first.dir, 'README.md'), '# changed\n');
    const two = await first.capture('beans: shell (c2)');
    expect(two?.commit).not.toBe(one?.commit);
    expect(await first.capture('beans: read (c3)')).toBeUndefined();
    expect(git(first.dir, 'log', '-1', '--format=%an')).toBe('runner r1');

    // Nothing was pushed: the second runner starts from the submitted commit and applies both patches.
    const second = await runner('r2').prepare(session);
    expect(existsSync(path.join(second.dir, 'a.txt'))).toBe(false);
    await second.restore(one!, 'beans: write_file (c1)');
    await second.restore(two!, 'beans: shell (c2)');
    for (const file of ['a.txt', 'b.bin', 'README.md']) expect(readFileSync(path.join(second.dir, file))).toEqual(readFileSync(path.join(first.dir, file)));
    // Pushed, a third runner starts from the branch, and the recorded changes it holds are not applied again.
    expect(await first.push()).toBeUndefined();
    expect(git(bare, 'rev-parse', 'beans/s1')).toBe(two!.commit);
    const third = await runner('r3').prepare(session);
    await third.restore(one!, 'beans: write_file (c1)');
    await third.restore(two!, 'beans: shell (c2)');
    expect(git(third.dir, 'rev-parse', 'HEAD')).toBe(two!.commit);
    expect(await third.summary()).toEqual({
      commit: two!.commit,
      change: '3 files changed, 2 insertions(+), 1 deletion(-)',
      files: ['README.md', 'a.txt', 'b.bin'],
    });
  });

  it("does not commit the sandbox's mount points (empty files at its read-only paths), nor git hooks the session wrote", async () => {
    const { session, runner } = origin();
    const worktree = await runner('r1').prepare(session);
    writeFileSync(path.join(worktree.dir, '.mcp.json'), '');
    writeFileSync(path.join(worktree.dir, 'plugins'), '');
    writeFileSync(path.join(worktree.dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\ntouch "$PWD/hook-ran"\nexit 1\n', { mode: 0o755 });
    expect(await worktree.capture('beans: shell (c1)')).toBeUndefined();
    writeFileSync(path.join(worktree.dir, 'real.txt'), 'work\n');
    const change = await worktree.capture('beans: shell (c2)');
    expect(git(worktree.dir, 'show', '--name-only', '--format=', change!.commit)).toBe('real.txt');
    expect(existsSync(path.join(worktree.dir, 'hook-ran'))).toBe(false);
  });

  it('says which commit origin lacks', async () => {
    const { session, runner } = origin();
    await expect(runner('r1').prepare({ ...session, baseCommit: '0123456789abcdef0123456789abcdef01234567' })).rejects.toThrow(
      /has no commit 0123456789ab.*push it/,
    );
  });
});
