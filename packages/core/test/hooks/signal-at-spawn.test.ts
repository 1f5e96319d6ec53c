// A signal that arrives right after a hook is spawned, before Beans has tracked it: with no handler
// installed yet, the default action ended Beans at once and left the hook running (seen once in CI:
// SIGTERM while a SessionStart hook held the start). The exit sweep is installed before the spawn.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processesLeft, processesNaming } from '../../../../test/support/processes.ts';

const runCommand = pathToFileURL(path.resolve(import.meta.dirname, '../../dist/hooks/run-command.js')).href;

describe('a hook and a signal at its spawn', () => {
  it('SIGTERM delivered between the spawn and the tracking still takes the hook down with Beans', async () => {
    const marker = `31${process.pid}${Date.now() % 10000}`;
    // The spawn is wrapped so the signal lands in that window, every time.
    const script = `
      import { createRequire } from 'node:module';
      const childProcess = createRequire(import.meta.url)('node:child_process');
      const spawn = childProcess.spawn;
      childProcess.spawn = function (...args) {
        const child = spawn.apply(this, args);
        process.kill(process.pid, 'SIGTERM');
        return child;
      };
      const { runHookCommand } = await import(${JSON.stringify(runCommand)});
      runHookCommand('exec sleep ${marker}', { cwd: process.cwd(), env: process.env, input: '', timeoutMs: 60000 });
      setTimeout(() => {}, 5000);
    `;
    try {
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15_000 });
      expect(run.signal).toBe('SIGTERM');
      expect(await processesLeft(marker, 3_000)).toEqual([]);
    } finally {
      for (const { pid } of processesNaming(marker)) process.kill(pid, 'SIGKILL');
    }
  });
});
