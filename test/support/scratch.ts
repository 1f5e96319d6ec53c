// Temporary git repositories (HOME and the XDG folders isolated, so no test sees the developer's
// settings) and scripted servers, each removed after the test that made it, whatever its outcome.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { startScriptedGemini } from './scripted-gemini.ts';
import { startScriptedOllama } from './scripted-ollama.ts';
import type { ScriptOptions, ScriptedServer } from './script.ts';

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

export interface TempRepo {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  write(file: string, content: string | Buffer): void;
  cleanup(): void;
}

export function makeTempRepo(files: Record<string, string | Buffer> = {}): TempRepo {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-e2e-')));
  const dir = path.join(root, 'repo');
  const home = path.join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const write = (file: string, content: string | Buffer) => {
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
  // A killed chat may still be writing its session as the folder goes: ENOTEMPTY is retried.
  const cleanup = () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  cleanups.push(cleanup);
  return { dir, home, env, write, cleanup };
}
