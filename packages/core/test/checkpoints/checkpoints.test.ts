import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/checkpoints/index.js';
import { git, makeHarness, tempDir, tree } from './harness.js';
import type { Workspace } from '../../src/workspace/workspace.js';

function workspaceWith(files: Record<string, string | Buffer>, options: { git?: boolean } = {}): Workspace {
  const root = tempDir('beans-ws-');
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  if (options.git) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'init', '--allow-empty');
  }
  return { root, cwd: root, isGit: options.git ?? false };
}

const write = (p: string, content: string) => ({ name: 'write_file', arguments: { path: p, content } });
const edit = (p: string, oldString: string, newString: string) => ({ name: 'edit_file', arguments: { path: p, old_string: oldString, new_string: newString } });
const shell = (command: string) => ({ name: 'shell', arguments: { command } });

describe.each([
  { kind: 'a git repository', git: true },
  { kind: 'a plain folder', git: false },
])('checkpoints in $kind', ({ git: isGit }) => {
  it('rewinds edits, creations, deletions and shell-made changes of three turns to each turn, and undoes a rewind', async () => {
    const ws = workspaceWith({ 'a.txt': 'one\ntwo\n', 'c.txt': 'doomed\n', 'keep.txt': 'untouched\n', 'src/lib.js': 'let x = 1;\n' }, { git: isGit });
    const h = makeHarness(ws);
    const initial = tree(ws.root);
    await h.turn('u1', [edit('a.txt', 'two', 'TWO'), write('b.txt', 'new file\n')]);
    const afterOne = tree(ws.root);
    await h.turn('u2', [shell('rm c.txt && echo shell >> a.txt && mkdir -p gen && echo made > gen/d.txt && sed -i s/1/2/ src/lib.js')]);
    const afterTwo = tree(ws.root);
    await h.turn('u3', [write('b.txt', 'rewritten\n'), edit('gen/d.txt', 'made', 'edited'), shell('rm b.txt')]);
    const afterThree = tree(ws.root);
    expect(h.problems).toEqual([]);
    expect(afterTwo).toMatchObject({ 'a.txt': 'one\nTWO\nshell\n', 'gen/d.txt': 'made\n', 'src/lib.js': 'let x = 2;\n' });
    expect(afterTwo['c.txt']).toBeUndefined();
    expect(afterThree['b.txt']).toBeUndefined();

    const listed = await h.store.list({ lines: true });
    expect(listed.map((checkpoint) => [checkpoint.id, checkpoint.files.map((file) => `${file.action} ${file.path}`).sort()])).toEqual([
      ['u1', ['create b.txt', 'modify a.txt']],
      ['u2', ['create gen/d.txt', 'delete c.txt', 'modify a.txt', 'modify src/lib.js']],
      ['u3', ['delete b.txt', 'modify gen/d.txt']],
    ]);
    expect(listed[0]).toMatchObject({ insertions: 2, deletions: 1 });

    const preview = await h.store.preview('u3');
    expect(preview).toMatchObject({ canRewind: true, filesChanged: ['b.txt', 'gen/d.txt'], changedByHand: [] });
    expect(tree(ws.root)).toEqual(afterThree); // a preview changes nothing

    const toThree = await h.store.rewind('u3');
    expect(toThree.failed).toEqual([]);
    expect(tree(ws.root)).toEqual(afterTwo);
    expect((await h.store.rewind('u2')).failed).toEqual([]);
    expect(tree(ws.root)).toEqual(afterOne);
    const toOne = await h.store.rewind('u1');
    expect(tree(ws.root)).toEqual(initial);
    expect(toOne.filesChanged).toEqual(['a.txt', 'b.txt']);

    // Rewinding to the checkpoint the last rewind made undoes it.
    expect(toOne.undoId).toBeDefined();
    await h.store.rewind(toOne.undoId!);
    expect(tree(ws.root)).toEqual(afterOne);
    // And the whole history still holds: back to the start from any point.
    await h.store.rewind('u1');
    expect(tree(ws.root)).toEqual(initial);
  });
});

describe('checkpoints', () => {
  it('keeps nothing for turns that change nothing, and takes no snapshot around read-only commands', async () => {
    const ws = workspaceWith({ 'a.txt': 'hello\n' }, { git: true });
    const h = makeHarness(ws);
    await h.turn('u1', [{ name: 'read_file', arguments: { path: 'a.txt' } }, shell('ls && cat a.txt && git status')]);
    expect(await h.store.list()).toEqual([]);
    expect(existsSync(h.storeDir)).toBe(false);
    // A command that may write but changes no content: snapshots, yet no checkpoint and no file content kept.
    await h.turn('u2', [shell('touch a.txt && mkdir -p empty')]);
    expect(await h.store.list()).toEqual([]);
    expect(existsSync(path.join(h.storeDir, 'checkpoints.jsonl'))).toBe(false);
    // Its index starts as the user's, so no file of the workspace was copied (at most a tree object).
    expect(Number(/^count: (\d+)/.exec(git(path.join(h.storeDir, 'git'), 'count-objects', '-v'))![1])).toBeLessThanOrEqual(1);
  });

  it('refuses to overwrite a file changed by hand after the checkpoint unless forced', async () => {
    const ws = workspaceWith({ 'a.txt': 'original\n', 'b.txt': 'b\n' });
    const h = makeHarness(ws);
    await h.turn('u1', [write('a.txt', 'by the agent\n'), write('b.txt', 'agent b\n')]);
    writeFileSync(path.join(ws.root, 'a.txt'), 'by hand\n');
    const refused = await h.store.rewind('u1');
    expect(refused).toMatchObject({ canRewind: false, changedByHand: ['a.txt'] });
    expect(refused.error).toContain('a.txt');
    expect(refused.error).toContain('--force');
    expect(tree(ws.root)).toEqual({ 'a.txt': 'by hand\n', 'b.txt': 'agent b\n' });
    const forced = await h.store.rewind('u1', { force: true });
    expect(forced.failed).toEqual([]);
    expect(tree(ws.root)).toEqual({ 'a.txt': 'original\n', 'b.txt': 'b\n' });
    // The hand-made version is not lost: the rewind kept it.
    await h.store.rewind(forced.undoId!);
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('by hand\n');
  });

  it('restores symlinks as links and never writes through a folder that became a link out of the workspace', async () => {
    const outside = tempDir('beans-outside-');
    writeFileSync(path.join(outside, 'x.txt'), 'outside\n');
    const ws = workspaceWith({ 'sub/x.txt': 'inside\n', 'a.txt': 'a\n' }, { git: true });
    symlinkSync('a.txt', path.join(ws.root, 'old-link'));
    const h = makeHarness(ws);
    await h.turn('u1', [shell('rm old-link && ln -s sub/x.txt new-link'), write('sub/x.txt', 'agent\n')]);
    expect(tree(ws.root)['new-link']).toBe('-> sub/x.txt');
    // By hand: the folder is swapped for a link to a folder outside.
    rmSync(path.join(ws.root, 'sub'), { recursive: true });
    symlinkSync(outside, path.join(ws.root, 'sub'));
    const result = await h.store.rewind('u1', { force: true });
    expect(readFileSync(path.join(outside, 'x.txt'), 'utf8')).toBe('outside\n');
    expect(result.failed?.map((failure) => failure.path)).toEqual(['sub/x.txt']);
    const after = tree(ws.root);
    expect(after['old-link']).toBe('-> a.txt');
    expect(after['new-link']).toBeUndefined();
  });

  it('restores binary files byte for byte', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0]);
    const ws = workspaceWith({ 'image.bin': bytes });
    const h = makeHarness(ws);
    await h.turn('u1', [shell("printf '\\377\\000changed' > image.bin")]);
    expect(readFileSync(path.join(ws.root, 'image.bin')).equals(bytes)).toBe(false);
    const preview = await h.store.preview('u1');
    expect(preview).toMatchObject({ filesChanged: ['image.bin'], insertions: 0, deletions: 0 });
    await h.store.rewind('u1');
    expect(readFileSync(path.join(ws.root, 'image.bin')).equals(bytes)).toBe(true);
  });

  it('notes a 50 MB file over checkpoints.maxFileBytes as not restorable instead of copying it', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024, 7);
    const ws = workspaceWith({ 'big.bin': big, 'small.txt': 'small\n' }, { git: true });
    const h = makeHarness(ws, { maxFileBytes: 10 * 1024 * 1024 });
    await h.turn('u1', [shell('printf x >> big.bin && echo more >> small.txt'), write('new-big.bin', 'y'.repeat(11 * 1024 * 1024))]);
    const plan = await h.store.preview('u1');
    expect(plan.notRestorable).toEqual(['big.bin']);
    expect(plan.files.find((file) => file.path === 'new-big.bin')).toMatchObject({ action: 'delete', restorable: true });
    const listed = await h.store.list();
    expect(listed[0]!.files.find((file) => file.path === 'big.bin')).toMatchObject({ restorable: false });
    const result = await h.store.rewind('u1');
    expect(readFileSync(path.join(ws.root, 'small.txt'), 'utf8')).toBe('small\n');
    expect(existsSync(path.join(ws.root, 'new-big.bin'))).toBe(false);
    expect(result.notRestorable).toEqual(['big.bin']);
    // Neither version of the big file is kept in the store.
    const sizeKb = Number(/size: (\d+)/.exec(git(path.join(h.storeDir, 'git'), 'count-objects', '-v'))![1]);
    expect(sizeKb).toBeLessThan(1024);
  });

  it('drops the oldest checkpoints first to stay under checkpoints.maxBytes', async () => {
    const ws = workspaceWith({ 'a.txt': 'a'.repeat(4000), 'b.txt': 'b'.repeat(4000), 'c.txt': 'c'.repeat(4000) });
    const h = makeHarness(ws, { maxBytes: 10_000 });
    await h.turn('u1', [write('a.txt', 'A')]);
    await h.turn('u2', [write('b.txt', 'B')]);
    await h.turn('u3', [write('c.txt', 'C')]);
    const listed = await h.store.list();
    expect(listed.map((checkpoint) => [checkpoint.id, checkpoint.available])).toEqual([
      ['u1', false],
      ['u2', true],
      ['u3', true],
    ]);
    expect(await h.store.rewind('u1')).toMatchObject({ canRewind: false });
    expect((await h.store.rewind('u1')).error).toContain('checkpoints.maxBytes');
    await h.store.rewind('u2');
    expect(tree(ws.root)).toEqual({ 'a.txt': 'A', 'b.txt': 'b'.repeat(4000), 'c.txt': 'c'.repeat(4000) });
  });

  it("leaves the user's git index, HEAD, branches and stash untouched", async () => {
    const ws = workspaceWith({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, { git: true });
    writeFileSync(path.join(ws.root, 'a.txt'), 'stashed\n');
    git(ws.root, 'stash', '-q');
    writeFileSync(path.join(ws.root, 'b.txt'), 'staged\n');
    git(ws.root, 'add', 'b.txt');
    const state = () => ({
      head: git(ws.root, 'rev-parse', 'HEAD'),
      branches: git(ws.root, 'branch', '-a'),
      stash: git(ws.root, 'stash', 'list'),
      staged: git(ws.root, 'diff', '--cached'),
      index: readFileSync(path.join(ws.root, '.git', 'index')).toString('base64'),
      refs: git(ws.root, 'for-each-ref'),
    });
    const before = state();
    const h = makeHarness(ws);
    await h.turn('u1', [write('a.txt', 'agent\n'), shell('echo more >> b.txt && echo new > c.txt')]);
    await h.store.rewind('u1');
    expect(tree(ws.root)).toEqual({ 'a.txt': 'a\n', 'b.txt': 'staged\n' });
    expect(state()).toEqual(before);
  });

  it('reads its checkpoints back from disk (a later process: the CLI, a resume)', async () => {
    const ws = workspaceWith({ 'a.txt': 'first\n' });
    const h = makeHarness(ws);
    await h.turn('u1', [write('a.txt', 'second\n')]);
    const again = new CheckpointStore({ dir: h.storeDir, workspace: ws });
    expect((await again.list()).map((checkpoint) => checkpoint.id)).toEqual(['u1']);
    await again.rewind('u1');
    expect(readFileSync(path.join(ws.root, 'a.txt'), 'utf8')).toBe('first\n');
  });

  it('rewinds to a user message that changed nothing itself by its time', async () => {
    const ws = workspaceWith({ 'a.txt': 'first\n' });
    const h = makeHarness(ws);
    await h.turn('u1', [write('a.txt', 'second\n')]);
    const quiet = Date.now() * 2; // any time after u1's
    await h.turn('u3', [write('a.txt', 'third\n')]);
    expect((await h.store.preview('u2')).canRewind).toBe(false);
    expect((await h.store.preview({ id: 'u2', at: quiet })).filesChanged).toEqual([]);
  });
});
