// A fleet for the runner tests: a bare repository as `origin`, a clone to submit from, and runners
// with homes (settings, keys, state), work folders and scripted model servers of their own.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, spawnBeans, type TempRepo } from './harness.ts';

type Child = ReturnType<typeof spawnBeans>;

const children: Child[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGKILL')));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

export function stop(child: Child, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('close', (code) => resolve(code));
    child.kill(signal);
  });
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export interface Fleet {
  repo: TempRepo;
  /** The bare repository runners clone and push to. */
  origin: string;
  /** The folder the tests write outside every worktree. */
  outside: string;
  /** The submitter's environment: the database, no provider key. */
  env: NodeJS.ProcessEnv;
  head: string;
}

/** A committed repository pushed to a bare origin, and the environment that queues its sessions in `databaseUrl`. */
export function makeFleet(databaseUrl: string, files: Record<string, string> = { 'README.md': '# demo\n' }): Fleet {
  const repo = makeTempRepo(files);
  git(repo.dir, 'config', 'user.email', 'dev@example.com');
  git(repo.dir, 'config', 'user.name', 'Dev');
  git(repo.dir, 'add', '-A');
  git(repo.dir, 'commit', '-qm', 'start');
  const origin = path.join(path.dirname(repo.dir), 'origin.git');
  execFileSync('git', ['init', '-q', '--bare', origin]);
  git(repo.dir, 'remote', 'add', 'origin', origin);
  git(repo.dir, 'push', '-q', '-u', 'origin', 'HEAD:main');
  const outside = path.join(path.dirname(repo.dir), 'outside');
  mkdirSync(outside, { recursive: true });
  return { repo, origin, outside, env: { ...repo.env, BEANS_DATABASE_URL: databaseUrl }, head: git(repo.dir, 'rev-parse', 'HEAD') };
}

export interface RunnerHome {
  home: string;
  workdir: string;
  env: NodeJS.ProcessEnv;
}

/** A machine for a runner: its own home with user settings, its own work folder, its model server's address. */
export function runnerHome(databaseUrl: string, model: ScriptedServer, settings: Record<string, unknown> = {}, extraEnv: NodeJS.ProcessEnv = {}): RunnerHome {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-runner-')));
  folders.push(root);
  const home = path.join(root, 'home');
  const workdir = path.join(root, 'work');
  mkdirSync(path.join(home, '.config', 'beans-agent'), { recursive: true });
  writeFileSync(path.join(home, '.config', 'beans-agent', 'settings.json'), JSON.stringify(settings));
  return {
    home,
    workdir,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_STATE_HOME: path.join(home, '.local', 'state'),
      LANG: 'C.UTF-8',
      OLLAMA_HOST: model.url,
      BEANS_DATABASE_URL: databaseUrl,
      ...extraEnv,
    },
  };
}

export interface StartedRunner {
  child: Child;
  stderr: () => string;
  id: string;
}

/** `beans runner --id NAME` in its home; resolves once it takes sessions. */
export async function startRunner(machine: RunnerHome, id: string, extra: string[] = []): Promise<StartedRunner> {
  const child = spawnBeans(['runner', '--id', id, '--workdir', machine.workdir, ...extra], { cwd: machine.home, env: machine.env });
  children.push(child);
  let stderr = '';
  child.stdout.resume();
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('taking background sessions')) resolve();
    });
    child.once('close', (code) => reject(new Error(`runner ${id} exited ${code}: ${stderr}`)));
  });
  return { child, stderr: () => stderr, id };
}

export function tracked(child: Child): Child {
  children.push(child);
  return child;
}

/** Resolves once `check` holds (checked every 200 ms); throws after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
    if (await check()) return;
  }
  throw new Error(`not within ${timeoutMs} ms`);
}
