// `beans -p "..." --background` (issue 54): the session goes to the local session server, started
// detached when none runs; the command prints its id at once; `sessions wait` exits with the turn's
// code; `sessions list` and `show` say where it stands.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.ts';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const started: { repo: TempRepo; model: ScriptedServer }[] = [];
afterEach(async () => {
  for (const { repo, model } of started.splice(0)) {
    // The server this test made outlives its command by design: stop it.
    try {
      const { pid } = JSON.parse(readFileSync(path.join(repo.env.XDG_STATE_HOME!, 'beans-agent', 'server.json'), 'utf8')) as { pid: number };
      process.kill(pid, 'SIGTERM');
      await eventually(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 5_000);
    } catch {
      // No server was left.
    }
    await model.close();
  }
});

describe('beans -p --background', () => {
  it('starts the server when none runs, prints the id at once; sessions wait exits 0; list and show say done', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'beans\n' });
    const model = await scriptedOllama({ turns: [{ text: ['Working in ', 'the background.'], chunkDelayMs: 200 }] });
    started.push({ repo, model });
    const env = { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    const run = await runBeans(['-p', 'work quietly', '--background'], { cwd: repo.dir, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const id = run.stdout.trim();
    expect(id).toMatch(/^\S+$/);
    expect(run.durationMs).toBeLessThan(8_000);

    const waited = await runBeans(['sessions', 'wait', id.slice(0, 14)], { cwd: repo.dir, env });
    expect(waited.code).toBe(0);
    const shown = JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: repo.dir, env })).stdout);
    expect(shown).toMatchObject({ id, state: 'done', cwd: repo.dir, title: 'work quietly', exitCode: 0 });
    const listed = JSON.parse((await runBeans(['sessions', 'list', '--json'], { cwd: repo.dir, env })).stdout);
    expect(listed.sessions.find((session: { id: string }) => session.id === id)).toMatchObject({ state: 'done', firstPrompt: 'work quietly' });
    expect(model.requests.filter((request) => request.kind === 'chat')).toHaveLength(1);

    // A second one goes to the same server.
    const second = await runBeans(['-p', 'and another', '--background'], { cwd: repo.dir, env });
    expect(second.code).toBe(0);
    expect((await runBeans(['sessions', 'wait', second.stdout.trim()], { cwd: repo.dir, env })).code).toBe(0);
  });

  it('a session that fails exits sessions wait with 1', async () => {
    const repo = makeTempRepo({});
    const model = await scriptedOllama({ turns: [{ text: 'unused' }], faults: [{ status: 500, always: true, body: { error: 'boom' } }] });
    started.push({ repo, model });
    const env = { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    mkdirSync(path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent'), { recursive: true });
    writeFileSync(path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json'), JSON.stringify({ retry: { maxAttempts: 1 } }));
    const run = await runBeans(['-p', 'fail please', '--background'], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    const waited = await runBeans(['sessions', 'wait', run.stdout.trim()], { cwd: repo.dir, env, timeoutMs: 60_000 });
    expect(waited.code).toBe(1);
  });

  it('sessions wait without a server says how to start one (exit 2)', async () => {
    const repo = makeTempRepo({});
    const run = await runBeans(['sessions', 'wait', 'abc'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No Beans server is running here: start one with `beans serve`');
  });
});
