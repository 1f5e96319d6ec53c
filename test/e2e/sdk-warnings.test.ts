// A provider SDK warns on its own (console.warn) on every request, e.g. @anthropic-ai/sdk for a model
// near its end of life: Beans shows each such warning once per run, not once per request.
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans } from './harness.ts';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import type { ScriptedServer } from '../support/script.ts';
import { DEPRECATED_MODEL, DEPRECATION } from '../support/sdk-deprecation.ts';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('warnings printed by a provider SDK', () => {
  it('a three-request run on a deprecated Claude model says so once on stderr; stdout has only the answer', async () => {
    const repo = makeTempRepo({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    server = await startScriptedAnthropic({
      turns: [
        { toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'read_file', args: { path: 'b.txt' } }] },
        { text: 'Read both.' },
      ],
    });
    const run = await runBeans(['-p', 'read a.txt and b.txt', '--provider', 'anthropic', '-m', DEPRECATED_MODEL], {
      cwd: repo.dir,
      env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Read both.\n');
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(3);
    expect(run.stderr.split(DEPRECATION).length - 1, run.stderr).toBe(1);
  });
});
