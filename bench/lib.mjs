// Shared helpers for the benchmarks: spawn the built beans, isolate HOME, summarise timings.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const BEANS = path.join(ROOT, 'bin', 'beans');

export function tempRepo() {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-bench-')));
  const dir = path.join(root, 'repo');
  const home = path.join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.local/state') };
  return { dir, home, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs beans; resolves with wall time, exit code, output and the peak RSS seen in /proc (kB). */
export function runBeans(args, options) {
  return runCommand(BEANS, args, options);
}

/** Runs a program the way runBeans does, for baselines such as `node -e 0`. */
export function runCommand(command, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const match = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      } catch {
        // the process already exited
      }
    }, 20);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, stdout, stderr, peakKb, startedAt: started });
    });
  });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function fmt(ms) {
  return `${ms.toFixed(1)} ms`;
}
