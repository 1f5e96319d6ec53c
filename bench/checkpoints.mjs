// Checkpoint cost in a 10,000-file git repository (100 folders of 100 files, committed):
// (1) an editing turn: what keeping the file's old content adds to one write_file call (before and
//     after hooks), first call of a turn and later ones;
// (2) a shell command: the shadow repository's snapshot before and after (git add -A + write-tree),
//     first command of a turn (two snapshots) and later ones (one: the last "after" is reused);
// (3) the same in a plain folder (no user index to start from): the first snapshot reads everything once;
// (4) a turn that changes nothing: bytes kept.
// Run: pnpm run build && node bench/checkpoints.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, fmt, median } from './lib.mjs';

const { CheckpointStore } = await import(path.join(ROOT, 'packages/core/dist/checkpoints/index.js'));
const ROUNDS = 15;

function makeTree(isGit) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-bench-cp-')));
  for (let d = 0; d < 100; d++) {
    mkdirSync(path.join(root, `src/d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) writeFileSync(path.join(root, `src/d${d}/f${f}.ts`), `export const v${d}_${f} = ${d * f};\n`.repeat(20));
  }
  writeFileSync(path.join(root, '.gitignore'), 'node_modules\n');
  if (isGit) {
    const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['add', '-A'], { cwd: root });
    execFileSync('git', ['commit', '-qm', 'init'], { cwd: root, env });
  }
  return { root, cwd: root, isGit };
}

function dirBytes(dir) {
  let total = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      const stats = statSync(full);
      if (stats.isDirectory()) walk(full);
      else total += stats.size;
    }
  };
  try {
    walk(dir);
  } catch {
    return 0;
  }
  return total;
}

async function time(action) {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function measure(isGit) {
  const workspace = makeTree(isGit);
  const storeDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'beans-bench-store-')), 's.checkpoints');
  const store = new CheckpointStore({ dir: storeDir, workspace });
  const result = { firstSnapshot: 0, editFirst: [], editLater: [], shellFirst: [], shellLater: [], nothingBytes: 0 };
  // A turn that changes nothing (a read-only command): what stays behind.
  store.startTurn({ id: 'quiet', at: 1, label: 'quiet' });
  result.firstSnapshot = await time(async () => {
    await store.beforeCommand();
    await store.afterCommand();
  });
  result.nothingBytes = dirBytes(path.join(storeDir, 'git', 'objects')) + dirBytes(path.join(storeDir, 'checkpoints.jsonl'));
  for (let round = 0; round < ROUNDS; round++) {
    store.startTurn({ id: `edit-${round}`, at: 10 + round, label: 'edit' });
    for (const [list, file] of [
      [result.editFirst, `src/d${round}/f1.ts`],
      [result.editLater, `src/d${round}/f2.ts`],
    ]) {
      const absolute = path.join(workspace.root, file);
      list.push(
        await time(async () => {
          await store.beforeFiles([absolute]);
          writeFileSync(absolute, `changed ${round}\n`); // the tool's own work is timed too, but is ~0.1 ms
          await store.afterFiles([absolute]);
        }),
      );
    }
    store.startTurn({ id: `shell-${round}`, at: 100 + round, label: 'shell' });
    for (const [list, file] of [
      [result.shellFirst, `src/d${round}/f3.ts`],
      [result.shellLater, `src/d${round}/f4.ts`],
    ]) {
      list.push(
        await time(async () => {
          await store.beforeCommand();
          writeFileSync(path.join(workspace.root, file), `shell ${round}\n`);
          await store.afterCommand();
        }),
      );
    }
  }
  rmSync(workspace.root, { recursive: true, force: true });
  rmSync(path.dirname(storeDir), { recursive: true, force: true });
  return result;
}

for (const isGit of [true, false]) {
  const r = await measure(isGit);
  console.log(`${isGit ? 'git repository' : 'plain folder'}, 10,000 files (median of ${ROUNDS}):`);
  console.log(`  write_file, first change of a turn:   ${fmt(median(r.editFirst))}`);
  console.log(`  write_file, later change:             ${fmt(median(r.editLater))}`);
  console.log(`  shell, first command of a turn:       ${fmt(median(r.shellFirst))} (two snapshots)`);
  console.log(`  shell, later command:                 ${fmt(median(r.shellLater))} (one snapshot)`);
  console.log(`  first snapshot of the session:        ${fmt(r.firstSnapshot)}`);
  console.log(`  kept after a turn that changed nothing: ${r.nothingBytes} bytes`);
}
