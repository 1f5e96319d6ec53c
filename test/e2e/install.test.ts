// Issue 37, item 2: Beans installed the way a user installs it, from `npm pack` of the repository:
// globally into a prefix (`beans` on PATH) and as a dev dependency of another repository (`npx beans`).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasTmux, TmuxSession } from '../tmux/tmux.ts';
import { makeTempRepo, scriptedOllama } from './harness.ts';

// Asynchronous, since the scripted server answers from this process's event loop; stdin is closed
// at once, as a piped stdin would be read as context.
const run = (file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) =>
  new Promise<string>((resolve, reject) => {
    const child = execFile(file, args, { ...options, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
    child.stdin?.end();
  });

const REPO = path.resolve(import.meta.dirname, '../..');
let scratch: string;
let tarball: string;

const npm = (args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-install-')));
  npm(['pack', '--pack-destination', scratch], REPO);
  tarball = path.join(
    scratch,
    readdirSync(scratch).find((name) => name.endsWith('.tgz'))!,
  );
}, 120_000);

afterAll(() => execFileSync('rm', ['-rf', scratch]));

describe('installed from the packed tarball', () => {
  it('holds the launcher, the bundle and the built-in plugins, and no workspace-only paths', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(files).toContain('package/bin/beans');
    expect(files).toContain('package/packages/cli/dist/bundle/main.js');
    // The chunks are CommonJS scripts (scripts/bundle-cjs.mjs says why); main.js keeps its name for the launcher.
    expect(files).toContain('package/packages/cli/dist/bundle/cli.cjs');
    expect(files.some((file) => file.startsWith('package/plugins/general-assistant/'))).toBe(true);
    // The web view `beans serve` serves: the page and its hashed script.
    expect(files).toContain('package/packages/cli/dist/web/index.html');
    expect(files.some((file) => /^package\/packages\/cli\/dist\/web\/assets\/app-\w+\.js$/.test(file))).toBe(true);
    expect(files.filter((file) => /node_modules|packages\/core\/|\.toolchain|\/src\//.test(file))).toEqual([]);
  });

  it('npm install -g puts beans on PATH, and it answers a one-shot prompt', async () => {
    const prefix = path.join(scratch, 'prefix');
    npm(['install', '-g', '--prefix', prefix, tarball], scratch);
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: 'Hello from the installed beans.' }] });
    const env = { ...repo.env, PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`, OLLAMA_HOST: server.url };
    const out = await run('beans', ['-p', 'hi'], { cwd: repo.dir, env });
    expect(out.trim()).toBe('Hello from the installed beans.');
  }, 120_000);

  it('a repository with Beans as a dev dependency runs `npx beans -p` and `npx beans chat`', async () => {
    const repo = makeTempRepo();
    writeFileSync(path.join(repo.dir, 'package.json'), '{"name":"uses-beans","private":true}\n');
    npm(['install', '--save-dev', tarball], repo.dir, { ...process.env, HOME: repo.home });
    const server = await scriptedOllama({ turns: [{ text: 'Answer through npx.' }] });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    expect((await run('npx', ['beans', '-p', 'hi'], { cwd: repo.dir, env })).trim()).toBe('Answer through npx.');
    if (!hasTmux) return;
    const session = TmuxSession.start({
      workspace: repo,
      env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' },
      program: ['npx', 'beans'],
      args: ['chat'],
    });
    try {
      await session.waitForText('Ask anything', 20_000);
      await session.submit('hello');
      await session.waitForText('Answer through npx.', 20_000);
    } finally {
      session.kill();
    }
  }, 120_000);
});
