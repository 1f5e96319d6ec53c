// Read-only classifier benchmark (issue 31): the time the permission check adds per command line,
// split into parsing (the tree-sitter bash grammar, shared with the deny rules) and classifying.
// Aim: the classifier adds under 1 ms per line. Prints the median and p99 over every line, warm.
// Run: pnpm exec tsc -b packages/core && node bench/read-only.mjs   (Node from scripts/toolchain.sh)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = path.join(import.meta.dirname, '..', 'packages', 'core', 'dist', 'permissions');
const { analyzeShellCommand } = await import(pathToFileURL(path.join(DIST, 'shell-parse.js')).href);
const { classifyReadOnly } = await import(pathToFileURL(path.join(DIST, 'read-only.js')).href);

const LINES = [
  'ls -la',
  'git status --short',
  'git log --oneline -10',
  'git diff HEAD',
  'git branch --show-current',
  'cat README.md | head -20',
  'grep -rn "TODO" src | sort | uniq -c | sort -rn | head',
  'find . -name "*.ts" -not -path "./node_modules/*" | xargs grep -l foo',
  "sed -n '1,20p' src/a.ts",
  'rg --type ts -g "!dist" foo',
  'git log --format="%H %s" main..HEAD -- src',
  'echo $(git rev-parse HEAD)',
  'find . -delete',
  'rm -rf build',
  'ls > out.txt',
  'GIT_PAGER=sh git log',
  'cat /etc/passwd',
  "eval 'rm f'",
  'npm ls --depth=0',
  'git status && git diff HEAD && git branch --show-current && git log --oneline -10',
];
const ROUNDS = 200;

const root = mkdtempSync(path.join(os.tmpdir(), 'beans-bench-ro-'));
const start = performance.now();
await analyzeShellCommand('ls');
const loadMs = performance.now() - start;

const parse = [];
const classify = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const line of LINES) {
    const t0 = performance.now();
    const analysis = await analyzeShellCommand(line);
    const t1 = performance.now();
    classifyReadOnly(analysis, line, { workspaceRoot: root });
    const t2 = performance.now();
    if (round > 0) {
      parse.push(t1 - t0);
      classify.push(t2 - t1);
    }
  }
}
rmSync(root, { recursive: true, force: true });

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${(at(0.5) * 1000).toFixed(0)} µs, p90 ${(at(0.9) * 1000).toFixed(0)} µs, p99 ${(at(0.99) * 1000).toFixed(0)} µs, max ${(sorted.at(-1) * 1000).toFixed(0)} µs`;
};
console.log(`grammar load (once per process): ${loadMs.toFixed(1)} ms`);
console.log(`${LINES.length} lines x ${ROUNDS - 1} warm rounds`);
console.log(`parse (tree-sitter, shared with deny rules): ${stats(parse)}`);
console.log(`classify (read-only rule):                   ${stats(classify)}`);
console.log(`parse + classify per line:                   ${stats(parse.map((p, i) => p + classify[i]))}`);
