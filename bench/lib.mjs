// Shared helpers for the benchmarks: spawn the built beans, isolate HOME, summarise timings.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
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
  // A Beans just killed (tmux kill-server returns before it exits) may still write its session file
  // while the folder goes: rmSync retries on ENOTEMPTY.
  return { dir, home, env, cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
}

/** Runs beans; resolves with wall time, exit code, output and the peak RSS seen in /proc (kB). */
export function runBeans(args, options) {
  return runCommand(BEANS, args, options);
}

/**
 * Runs a program the way runBeans does, for baselines such as `node -e 0`. peakKb is the process's
 * VmHWM; with `tree`, the peak of the summed VmRSS of the process and its descendants, sampled every
 * 20 ms, for programs that start another process to do the work (Gemini CLI relaunches itself).
 */
export function runCommand(command, args, { cwd, env, tree = false }) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    const poll = setInterval(() => {
      const kb = tree ? processTree(child.pid).reduce((sum, pid) => sum + statusKb(pid, 'VmRSS'), 0) : statusKb(child.pid, 'VmHWM');
      peakKb = Math.max(peakKb, kb);
    }, 20);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, stdout, stderr, peakKb, startedAt: started, pid: child.pid });
    });
  });
}

/** A field of /proc/<pid>/status in kB; 0 once the process has exited. */
function statusKb(pid, field) {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** pid and its descendants, from the parent ids in /proc (this kernel has no /proc/<pid>/task/<tid>/children). */
function processTree(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]); // the name in parentheses may hold spaces
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // it exited while we looked
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i += 1) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/**
 * Starts a program in a 120x40 pseudo-terminal (util-linux `script`) and resolves with the time in ms
 * until its output matches `drawn` (its prompt is on the screen); rejects if it exits or times out
 * first. Then kills the whole tree: a program may outlive its terminal (Gemini CLI's parent ignores SIGHUP).
 */
export function untilDrawn(command, args, drawn, { cwd, env, timeoutMs = 30_000 }) {
  const quoted = [command, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('script', ['-qfec', `stty cols 120 rows 40; exec ${quoted}`, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm-256color' } });
    child.stdout.setEncoding('utf8'); // a character split between two reads stays whole
    let screen = '';
    let outcome; // the time to the prompt, or why there was none
    const settle = (result) => {
      if (outcome !== undefined) return;
      outcome = result;
      for (const pid of processTree(child.pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const timer = setTimeout(() => settle(new Error(`no prompt after ${timeoutMs / 1000} s`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      screen += chunk;
      if (drawn.test(screen)) settle(performance.now() - started);
    });
    child.on('close', () => {
      clearTimeout(timer);
      if (typeof outcome === 'number') return resolve(outcome);
      // The screen's text for the error message: cursor moves right become spaces, other escapes go.
      const text = screen
        .replace(/\x1b\[\d*C/g, ' ')
        .replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b./g, '')
        .replace(/\s+/g, ' ');
      reject(new Error(`${path.basename(command)}: ${outcome?.message ?? 'it exited before drawing its prompt'}; the screen ends with: ${text.slice(-300)}`));
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
