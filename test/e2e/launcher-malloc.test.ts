// bin/beans tunes glibc's allocator for Beans' own process (issue 36: a long session's peak memory)
// and only for it: the programs Beans starts see the environment the user gave Beans.
import { readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, spawnBeans } from './harness.ts';

async function shellEnvironment(extra: NodeJS.ProcessEnv): Promise<string> {
  const repo = makeTempRepo();
  const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'shell', args: { command: 'env > seen.txt' } }] }, { text: 'done' }] });
  try {
    const run = await runBeans(['-p', 'go', '--permission-mode', 'yolo'], {
      cwd: repo.dir,
      env: { ...repo.env, ...extra, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return readFileSync(path.join(repo.dir, 'seen.txt'), 'utf8');
  } finally {
    await server.close();
    repo.cleanup();
  }
}

describe('the launcher’s allocator settings', () => {
  it('apply to Beans’ process', async () => {
    const repo = makeTempRepo();
    const child = spawnBeans(['--help'], { cwd: repo.dir, env: repo.env });
    // What Node was started with: read once the launcher has exec'd it, before it can end.
    let environ = '';
    while (child.exitCode === null && !environ) {
      try {
        if (readlinkSync(`/proc/${child.pid}/exe`).includes('node')) environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8');
      } catch {
        // not started yet
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await new Promise((resolve) => child.once('close', resolve));
    repo.cleanup();
    expect(environ.split('\0')).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=131072']));
  });

  it('do not reach the commands it runs, and a user’s own value is kept and passed on', async () => {
    const plain = await shellEnvironment({});
    expect(plain).not.toMatch(/^MALLOC_|^BEANS_LAUNCHER/m);
    const own = await shellEnvironment({ MALLOC_ARENA_MAX: '4' });
    expect(own).toMatch(/^MALLOC_ARENA_MAX=4$/m);
    expect(own).not.toMatch(/^MALLOC_TRIM_THRESHOLD_|^BEANS_LAUNCHER/m);
  });
});
