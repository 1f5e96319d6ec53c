import { sweepAtExit, trackProcessGroup, untrackProcessGroup } from '../tools/process-tree.js';
import { builtin } from '../node-builtins.js';

/** What one hook process did. Never thrown: a hook that fails is data. */
export interface CommandRun {
  /** Null when the process was killed (timeout, abort) or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the process could not start. */
  startError?: string;
  durationMs: number;
}

export interface RunCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to the hook's stdin, then stdin is closed. */
  input: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

// A hook that floods its output must not fill Beans' memory; what it says past this is dropped.
const MAX_OUTPUT_BYTES = 1024 * 1024;
// After the hook exits, how long a background child may keep its pipes open before they are cut.
const DRAIN_MS = 200;

/**
 * Runs a hook command with bash in its own process group, so a timeout or an abort kills the hook and
 * everything it started. Resolves once it has exited (or was killed); must not throw.
 */
export function runHookCommand(command: string, options: RunCommandOptions): Promise<CommandRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    let child;
    sweepAtExit();
    try {
      child = builtin('node:child_process').spawn('bash', ['-c', command], {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      resolve({ exitCode: null, stdout: '', stderr: '', timedOut: false, startError: (error as Error).message, durationMs: performance.now() - started });
      return;
    }
    // A hook still running when Beans exits (Ctrl+C twice while a SessionStart hook holds the start)
    // is stopped with it, not left behind.
    if (child.pid) trackProcessGroup(child.pid);
    const stdout = collector();
    const stderr = collector();
    child.stdout.on('data', stdout.add);
    child.stderr.on('data', stderr.add);
    // A hook that exits without reading its input closes the pipe under us (EPIPE): that is fine.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);

    let timedOut = false;
    let settled = false;
    let exitCode: number | null = null;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => killGroup();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) killGroup();

    const finish = (startError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      if (child.pid) untrackProcessGroup(child.pid);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        exitCode: timedOut ? null : exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        ...(startError ? { startError } : {}),
        durationMs: performance.now() - started,
      });
    };
    let drain: NodeJS.Timeout | undefined;
    child.on('error', (error) => finish(error.message));
    child.on('exit', (code, signal) => {
      exitCode = code ?? (signal ? null : 1);
      drain = setTimeout(() => finish(), DRAIN_MS);
    });
    child.on('close', () => finish());
  });
}

function collector() {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add: (chunk: Buffer) => {
      if (size >= MAX_OUTPUT_BYTES) return;
      chunks.push(chunk.subarray(0, MAX_OUTPUT_BYTES - size));
      size += chunk.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}
