// A hook still running when Beans is stopped by a signal goes with it: SIGINT or SIGTERM while a
// SessionStart hook holds the session build (before any stop handler of the run is installed) used to
// end Beans at once and leave the hook running for ever.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, processesLeft, processesNaming } from '../support/processes.ts';
import { makeTempRepo, scriptedOllama, spawnBeans } from './harness.ts';

describe('hooks stopped with Beans', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} while a SessionStart hook holds the start: Beans ends by that signal and the hook is gone`, async () => {
      const server = await scriptedOllama({ turns: [{ text: 'never asked' }] });
      const repo = makeTempRepo();
      const release = path.join(repo.home, `release-${signal}`);
      const hold = `while [ ! -f '${release}' ]; do sleep 0.05; done`;
      mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
      writeFileSync(
        path.join(repo.home, '.config', 'beans-agent', 'settings.json'),
        JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: hold }] }] } }),
      );
      const child = spawnBeans(['-p', 'hi'], {
        cwd: repo.dir,
        env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'scripted' },
      });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('close', (code, signalName) => resolve({ code, signal: signalName })),
      );
      try {
        expect(await eventually(() => processesNaming(release).length > 0, 15_000)).toBe(true);
        child.kill(signal);
        const result = await ended;
        expect(result.signal).toBe(signal);
        expect(await processesLeft(release, 3_000)).toEqual([]);
        expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
      } finally {
        child.kill('SIGKILL');
        // What a failure left behind must not outlive the test.
        for (const { pid } of processesNaming(release)) process.kill(pid, 'SIGKILL');
      }
    });
  }
});
