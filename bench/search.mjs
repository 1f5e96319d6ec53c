// Search benchmark: Beans' grep and glob tools against `git grep` and `find`, in the same run, over a
// generated git repository of 100,000 files plus one 50 MB file (and an ignored node_modules).
// Prints the median of RUNS timings per row and the ratio to the baseline. Aim: grep within 1.5x of git grep.
// Run: pnpm exec tsc -b packages/core && node bench/search.mjs   (Node from scripts/toolchain.sh)
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'packages', 'core', 'dist');
const { grepTool, globTool, createToolSessionState } = await import(pathToFileURL(path.join(DIST, 'index.js')).href);
const { searchWorkspace } = await import(pathToFileURL(path.join(DIST, 'tools', 'grep.js')).href);
const run = promisify(execFile);

const FILES = 100_000;
const PER_DIR = 100;
const BIG_FILE_MB = 50;
const IGNORED_FILES = 5_000;
const RUNS = 5;
const PATTERN = 'needle_[0-9]+';

const words = ['alpha', 'beta', 'gamma', 'delta', 'const', 'return', 'function', 'value', 'index', 'result', 'config', 'handler'];
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const line = () => Array.from({ length: 8 }, () => words[Math.floor(random() * words.length)]).join(' ');

function generate(repo) {
  const exts = ['ts', 'js', 'md', 'py', 'json'];
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(repo, 'src', `m${Math.floor(i / (PER_DIR * 10))}`, `d${Math.floor(i / PER_DIR) % 10}`);
    if (i % PER_DIR === 0) mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 20 }, line);
    if (i % 97 === 0) lines[7] = `const x = needle_${i};`;
    writeFileSync(path.join(dir, `f${i}.${exts[i % exts.length]}`), `${lines.join('\n')}\n`);
  }
  // One big log-like file: 50 MB of ordinary lines with a needle every 10,000 lines.
  const chunk = [];
  for (let i = 0; i < 10_000; i++) chunk.push(i === 5_000 ? `event needle_${i} happened` : `${line()} ${i}`);
  const block = `${chunk.join('\n')}\n`;
  const copies = Math.ceil((BIG_FILE_MB * 1024 * 1024) / Buffer.byteLength(block));
  writeFileSync(path.join(repo, 'big.log.txt'), block.repeat(copies));
  writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
  for (let i = 0; i < IGNORED_FILES; i++) {
    const dir = path.join(repo, 'node_modules', `p${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `i${i}.ts`), `needle_${i}\n`);
  }
  const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@b', ...args], { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'bench tree');
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Times each function RUNS times after a warm-up, interleaving them run by run so that load from
 * other processes on the machine hits all of them alike. Returns the median ms and last result of each.
 */
async function timeAll(...fns) {
  for (const fn of fns) await fn(); // warm-up: page cache, git index, JIT
  const times = fns.map(() => []);
  const last = [];
  for (let i = 0; i < RUNS; i++) {
    for (const [j, fn] of fns.entries()) {
      const started = process.hrtime.bigint();
      last[j] = await fn();
      times[j].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return fns.map((_, j) => ({ ms: median(times[j]), last: last[j] }));
}

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-bench-search-')));
try {
  const repo = path.join(base, 'repo');
  mkdirSync(repo);
  let started = Date.now();
  generate(repo);
  console.log(`Generated ${FILES.toLocaleString('en-US')} files + a ${BIG_FILE_MB} MB file (+${IGNORED_FILES} ignored) and committed them in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);

  const workspace = { root: repo, cwd: repo, isGit: true };
  const context = () => ({ signal: new AbortController().signal, workspace, state: createToolSessionState() });
  const big = { maxBuffer: 1 << 30, cwd: repo };

  const rows = [];
  const grep = (pattern, flag) => () => run('git', ['grep', '-n', '-I', '--untracked', flag, '-e', pattern], big);
  const findFiles = (...name) => () => run('find', ['.', '-path', './.git', '-prune', '-o', '-path', './node_modules', '-prune', '-o', '-type', 'f', ...name, '-print'], big);
  const count = (result) => result.stdout.split('\n').filter(Boolean).length;

  // git grep's own ERE engine is slow on classes like [0-9]+; Beans runs it with PCRE (-P), so both are shown.
  const [gitP, gitE, beansGrep, jsGrep] = await timeAll(
    grep(PATTERN, '-P'),
    grep(PATTERN, '-E'),
    () => grepTool.execute({ pattern: PATTERN }, context()),
    () => searchWorkspace(workspace, { pattern: PATTERN }, new AbortController().signal, ['js']),
  );
  rows.push([`grep /${PATTERN}/ (${count(gitP.last)} matches)`, 'git grep -P', gitP.ms, beansGrep.ms]);
  rows.push(['  same', 'git grep -E', gitE.ms, beansGrep.ms]);
  rows.push(['  same, portable JS engine', 'git grep -P', gitP.ms, jsGrep.ms]);

  const literal = 'needle_5000 happened';
  const [gitLiteral, beansLiteral] = await timeAll(grep(literal, '-F'), () => grepTool.execute({ pattern: literal }, context()));
  rows.push([`grep "${literal}"`, 'git grep -F', gitLiteral.ms, beansLiteral.ms]);

  const [findTs, beansTs] = await timeAll(findFiles('-name', '*.ts'), () => globTool.execute({ pattern: '**/*.ts' }, context()));
  rows.push([`glob **/*.ts (${count(findTs.last)} files, newest first)`, 'find', findTs.ms, beansTs.ms]);
  const [findAll, beansAll] = await timeAll(findFiles(), () => globTool.execute({ pattern: '**/*' }, context()));
  rows.push([`glob **/* (${count(findAll.last)} files, newest first)`, 'find', findAll.ms, beansAll.ms]);

  const pad = (text, width) => String(text).padEnd(width);
  console.log(`${pad('operation', 46)}${pad('baseline', 13)}${pad('baseline ms', 13)}${pad('beans ms', 11)}ratio`);
  for (const [name, baseline, baseMs, beansMs] of rows) {
    console.log(`${pad(name, 46)}${pad(baseline, 13)}${pad(baseMs.toFixed(1), 13)}${pad(beansMs.toFixed(1), 11)}${(beansMs / baseMs).toFixed(2)}x`);
  }
  console.log(`\nMedian of ${RUNS} runs after one warm-up. Beans' grep output: ${beansGrep.last.content.split('\n').at(-1)}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
