// Runs the built `bin/beans` the way a user or a script would: a real process in a temporary git
// repository, with HOME and the XDG folders isolated so no test sees the developer's settings.
import { spawn } from 'node:child_process';
import path from 'node:path';

export { makeTempRepo, scriptedGemini, scriptedOllama, type TempRepo } from '../support/scratch.ts';

export const BEANS_BIN = path.resolve(import.meta.dirname, '../../bin/beans');

export interface BeansRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export function runBeans(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<BeansRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(BEANS_BIN, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`beans ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started });
    });
    // A run may end without reading its input (bin/beans answers --version in the shell): EPIPE then.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Spawns beans without waiting, for tests that signal it mid-run. */
export function spawnBeans(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return spawn(BEANS_BIN, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function parseJsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
