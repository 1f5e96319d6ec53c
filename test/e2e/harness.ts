// Runs the built `bin/beans` the way a user or a script would: a real process in a temporary git
// repository, with HOME and the XDG folders isolated so no test sees the developer's settings.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { startScriptedGemini } from '../support/scripted-gemini.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptOptions, ScriptedServer } from '../support/script.ts';

// Every repository and server a test makes is removed after it, whatever the test's outcome.
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function scriptedOllama(options: ScriptOptions): Promise<ScriptedServer> {
  const server = await startScriptedOllama(options);
  cleanups.push(() => server.close());
  return server;
}

export async function scriptedGemini(options: ScriptOptions): Promise<ScriptedServer> {
  const server = await startScriptedGemini(options);
  cleanups.push(() => server.close());
  return server;
}

export const BEANS_BIN = path.resolve(import.meta.dirname, '../../bin/beans');

export interface TempRepo {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  write(file: string, content: string): void;
  cleanup(): void;
}

export function makeTempRepo(files: Record<string, string> = {}): TempRepo {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-e2e-')));
  const dir = path.join(root, 'repo');
  const home = path.join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const write = (file: string, content: string) => {
    const full = path.join(dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  };
  for (const [file, content] of Object.entries(files)) write(file, content);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
  };
  const cleanup = () => rmSync(root, { recursive: true, force: true });
  cleanups.push(cleanup);
  return { dir, home, env, write, cleanup };
}

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
    child.stdin.end(options.input ?? '');
  });
}

/** Spawns beans without waiting, for tests that signal it mid-run. */
export function spawnBeans(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return spawn(BEANS_BIN, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function parseJsonLines(text: string): Record<string, unknown>[] {
  return text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Record<string, unknown>);
}
