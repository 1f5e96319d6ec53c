// Search benchmark: Beans' grep, glob and read_file tools against ripgrep (when installed), `git grep -P`
// and `find`, in the same run, over a generated git repository of 100,000 files plus one 50 MB file (and
// an ignored node_modules). Prints the median of RUNS timings per row and the ratio to the baseline.
// Each row compares like with like: the same regex engine family, the same files, the same output. Beans'
// grep tool picks ripgrep when it is installed, so its row is compared with rg itself; each of Beans' own
// engines (git grep -P under Beans, and the portable JavaScript one) is measured separately.
// Aims (issue 21): grep at ripgrep's speed, glob within 2x of `rg --files`.
// Run: pnpm exec tsc -b packages/core && node bench/search.mjs   (Node from scripts/toolchain.sh)
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'packages', 'core', 'dist');
const { grepTool, globTool, readFileTool, createToolSessionState } = await import(pathToFileURL(path.join(DIST, 'index.js')).href);
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
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
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
  const started = Date.now();
  generate(repo);
  console.log(
    `Generated ${FILES.toLocaleString('en-US')} files + a ${BIG_FILE_MB} MB file (+${IGNORED_FILES} ignored) and committed them in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
  );

  const workspace = { root: repo, cwd: repo, isGit: true };
  const context = () => ({ signal: new AbortController().signal, workspace, state: createToolSessionState() });
  const big = { maxBuffer: 1 << 30, cwd: repo };

  const rows = [];
  const hasRg = (() => {
    try {
      execFileSync('rg', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  if (!hasRg) console.log('ripgrep (rg) is not installed: rows that need it are left out (apt-get install ripgrep).\n');
  const rg =
    (...args) =>
    () =>
      run('rg', ['--no-config', '--hidden', '-g', '!.git', ...args], big).catch((error) => error); // exit 1 = no match
  const gitGrep = (pattern, flag) => () => run('git', ['grep', '-n', '-I', '--untracked', flag, '-e', pattern], big);
  const findFiles =
    (...name) =>
    () =>
      run('find', ['.', '-path', './.git', '-prune', '-o', '-path', './node_modules', '-prune', '-o', '-type', 'f', ...name, '-print'], big);
  const count = (result) => result.stdout.split('\n').filter(Boolean).length;
  const engine = (pattern, name) => () => searchWorkspace(workspace, { pattern }, new AbortController().signal, [name]);

  for (const [pattern, label] of [
    [PATTERN, `/${PATTERN}/`],
    ['needle_5000 happened', '"needle_5000 happened"'],
  ]) {
    const fns = [gitGrep(pattern, '-P'), () => grepTool.execute({ pattern }, context()), engine(pattern, 'git'), engine(pattern, 'js')];
    if (hasRg) fns.push(rg('-n', '--no-heading', '-e', pattern));
    const [gitP, beans, beansGit, beansJs, rgGrep] = await timeAll(...fns);
    const what = `grep ${label} (${count(gitP.last)} matches)`;
    if (hasRg) rows.push([what, 'rg', rgGrep.ms, beans.ms, 'Beans grep tool (runs rg)']);
    else rows.push([what, 'git grep -P', gitP.ms, beans.ms, 'Beans grep tool (runs git grep -P)']);
    rows.push(['', 'git grep -P', gitP.ms, beansGit.ms, "Beans' git engine"]);
    rows.push(['', hasRg ? 'rg' : 'git grep -P', hasRg ? rgGrep.ms : gitP.ms, beansJs.ms, "Beans' JavaScript engine"]);
  }

  for (const [pattern, rgArgs, findArgs] of [
    ['**/*.ts', ['-g', '*.ts'], ['-name', '*.ts']],
    ['**/*', [], []],
  ]) {
    const fns = [() => globTool.execute({ pattern }, context()), findFiles(...findArgs)];
    if (hasRg) fns.push(rg('--files', ...rgArgs));
    const [beans, find, rgFiles] = await timeAll(...fns);
    const what = `glob ${pattern} (${count(find.last)} files)`;
    rows.push([what, hasRg ? 'rg --files' : 'find', hasRg ? rgFiles.ms : find.ms, beans.ms, 'Beans glob (newest first)']);
  }

  // A window deep in the 50 MB file: the second read of the same file starts from a remembered line position.
  const deep = 800_000;
  const sed = () => run('sed', ['-n', `${deep},${deep + 99}p;${deep + 100}q`, 'big.log.txt'], big);
  const readDeep = () => readFileTool.execute({ path: 'big.log.txt', offset: deep, limit: 100 }, sharedContext);
  const sharedContext = context();
  const firstStarted = process.hrtime.bigint();
  await readDeep();
  const firstMs = Number(process.hrtime.bigint() - firstStarted) / 1e6;
  const [sedDeep, beansDeep] = await timeAll(sed, readDeep);
  rows.push([`read_file line ${deep.toLocaleString('en-US')} of big.log.txt, 100 lines`, 'sed -n', sedDeep.ms, firstMs, 'first read (scans to the line)']);
  rows.push(['', 'sed -n', sedDeep.ms, beansDeep.ms, 'later reads of the same file']);

  const pad = (text, width) => String(text).padEnd(width);
  console.log(`${pad('operation', 52)}${pad('baseline', 13)}${pad('baseline ms', 13)}${pad('beans ms', 11)}${pad('ratio', 8)}what ran`);
  for (const [name, baseline, baseMs, beansMs, what] of rows) {
    console.log(
      `${pad(name, 52)}${pad(baseline, 13)}${pad(baseMs.toFixed(1), 13)}${pad(beansMs.toFixed(1), 11)}${pad(`${(beansMs / baseMs).toFixed(2)}x`, 8)}${what}`,
    );
  }
  console.log(`\nMedian of ${RUNS} runs after one warm-up (the first read_file row is a single cold-index run).`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
