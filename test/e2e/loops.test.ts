// Issue 61 end to end: `-p --loop 10s --max-runs 3` for scripts that poll; routines run by
// `beans serve`, once per tick with two servers on one store; a served session's /loop runs in the
// server, each run ending with a result on its event stream.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.ts';
import { startBeansServer, type BeansServer } from '../support/beans-server.ts';
import { lastUser, type ScriptedServer } from '../support/script.ts';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const opened: { repo?: TempRepo; model?: ScriptedServer; servers?: BeansServer[] }[] = [];
afterEach(async () => {
  for (const { repo, model, servers } of opened.splice(0)) {
    await Promise.all((servers ?? []).map((server) => server.stop()));
    await model?.close();
    repo?.cleanup();
  }
});

describe('beans -p --loop', () => {
  it('runs the prompt now and every 10 s, prints each run, and stops after --max-runs', async () => {
    const repo = makeTempRepo({});
    let polls = 0;
    const model = await scriptedOllama({ turns: () => ({ text: `deploy is ${++polls < 3 ? 'pending' : 'done'}` }) });
    opened.push({ repo, model });
    const env = { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    const run = await runBeans(['-p', 'check the deploy', '--loop', '10s', '--max-runs', '3', '-o', 'json'], { cwd: repo.dir, env, timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const results = parseJsonLines(run.stdout);
    expect(results.map((result) => [result.type, result.subtype, result.result])).toEqual([
      ['result', 'success', 'deploy is pending'],
      ['result', 'success', 'deploy is pending'],
      ['result', 'success', 'deploy is done'],
    ]);
    const times = model.requests.filter((request) => request.kind === 'chat').map((request) => request.time);
    expect(times).toHaveLength(3);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    console.log(`-p --loop 10s: gaps ${gaps.map((gap) => Math.round(gap)).join(', ')} ms; whole run ${run.durationMs} ms`);
    for (const gap of gaps) expect(gap).toBeGreaterThan(9_500);
    for (const gap of gaps) expect(gap).toBeLessThan(11_000);
    // The last run was told it is the last; the session is one conversation.
    expect(lastUser(model.requests.at(-1)!)).toContain('This is the last run');
    expect(results.every((result) => result.session_id === results[0]!.session_id)).toBe(true);
  }, 60_000);

  it('refuses an interval under 10 s, a word that is no interval, --max-runs 0 and --max-runs without --loop (exit 2, one sentence)', async () => {
    const repo = makeTempRepo({});
    opened.push({ repo });
    const run = await runBeans(['-p', 'hi', '--loop', '5s'], {
      cwd: repo.dir,
      env: { ...repo.env, BEANS_PROVIDER: 'ollama', OLLAMA_HOST: 'http://127.0.0.1:9' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--loop runs at most every 10 seconds');
    for (const [args, says] of [
      [['--loop', 'often'], '--loop often is not an interval'],
      [['--loop', '10s', '--max-runs', '0'], '--max-runs 0 is not a whole number of at least 1'],
      [['--max-runs', '3'], '--max-runs counts the runs of --loop'],
    ] as const) {
      const refused = await runBeans(['-p', 'hi', ...args], {
        cwd: repo.dir,
        env: { ...repo.env, BEANS_PROVIDER: 'ollama', OLLAMA_HOST: 'http://127.0.0.1:9' },
      });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(says);
    }
  });
});

describe('routines', () => {
  it('keeps the model, provider and permission mode given to routines add, wherever they stand on the line', async () => {
    const repo = makeTempRepo({});
    opened.push({ repo });
    const after = await runBeans(['routines', 'add', '0 3 * * *', 'nightly', '--model', 'qwen3', '--provider', 'ollama', '--permission-mode', 'acceptEdits'], {
      cwd: repo.dir,
      env: repo.env,
    });
    expect(after.code, after.stderr).toBe(0);
    const before = await runBeans(['-m', 'llama3', '--permission-mode', 'plan', 'routines', 'add', '0 4 * * *', 'early'], { cwd: repo.dir, env: repo.env });
    expect(before.code, before.stderr).toBe(0);
    const { routines } = JSON.parse((await runBeans(['routines', 'list', '--json'], { cwd: repo.dir, env: repo.env })).stdout);
    expect(routines).toMatchObject([
      { prompt: 'nightly', model: 'qwen3', provider: 'ollama', permissionMode: 'auto-edit' },
      { prompt: 'early', model: 'llama3', permissionMode: 'plan' },
    ]);
    expect((await runBeans(['routines', 'list'], { cwd: repo.dir, env: repo.env })).stdout).toContain('(qwen3, auto-edit)');
  });

  it('beans routines add|list|remove keep the store; two beans serve on it run a tick once, as a background session', async () => {
    const repo = makeTempRepo({ 'notes.txt': 'beans\n' });
    // The routine's session writes its summary: --permission-mode auto-edit lets it without anyone there.
    const model = await scriptedOllama({
      turns: (_request, n) =>
        n === 0 ? { toolCalls: [{ name: 'write_file', args: { path: 'summary.md', content: 'beans\n' } }] } : { text: 'Nightly summary written.' },
    });
    const env = { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    opened.push({ repo, model });

    const bad = await runBeans(['routines', 'add', '61 * * * *', 'never'], { cwd: repo.dir, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a valid cron expression');
    const added = await runBeans(['routines', 'add', '* * * * *', 'summarise the notes', '--permission-mode', 'auto-edit'], { cwd: repo.dir, env });
    expect(added.code).toBe(0);
    const id = /Routine ([0-9a-f]{8})/.exec(added.stdout)![1]!;
    const other = /Routine ([0-9a-f]{8})/.exec((await runBeans(['routines', 'add', '0 3 * * *', 'something else'], { cwd: repo.dir, env })).stdout)![1]!;
    expect((await runBeans(['routines', 'remove', other], { cwd: repo.dir, env })).code).toBe(0);
    const listed = JSON.parse((await runBeans(['routines', 'list', '--json'], { cwd: repo.dir, env })).stdout);
    expect(listed.routines).toHaveLength(1);
    expect(listed.routines[0]).toMatchObject({ id, cron: '* * * * *', prompt: 'summarise the notes', cwd: repo.dir, runs: [] });

    // Two servers on the same machine and store, started together: the next minute's tick runs once.
    const servers = await Promise.all([startBeansServer({ cwd: repo.dir, env }), startBeansServer({ cwd: repo.dir, env })]);
    opened.push({ servers });
    await eventually(() => model.requests.some((request) => request.kind === 'chat'), 70_000);
    const tickAt = Date.now();
    // Long enough for the slower server to have reached the same tick.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const chats = model.requests.filter((request) => request.kind === 'chat');
    expect(chats).toHaveLength(2); // one session: the write, then the answer
    expect(lastUser(chats[0]!)).toBe('summarise the notes');
    const runsDir = path.join(repo.env.XDG_STATE_HOME!, 'beans-agent', 'routine-runs', id);
    expect(readdirSync(runsDir)).toHaveLength(1);
    console.log(
      `routine "* * * * *": ran ${new Date(chats[0]!.time).toISOString()} (tick at second ${new Date(chats[0]!.time).getSeconds()}), seen ${tickAt - chats[0]!.time} ms later`,
    );

    // The run is a background session like any other: done, in the server's list and in beans routines list.
    const after = JSON.parse((await runBeans(['routines', 'list', '--json'], { cwd: repo.dir, env })).stdout);
    const [run] = after.routines[0].runs;
    expect(run).toMatchObject({ routineId: id });
    expect(run.sessionId).toMatch(/\S/);
    const owner = servers.find((server) => server.child.pid !== undefined && run.by.startsWith(`serve:${server.child.pid}@`)) ?? servers[0]!;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && (await owner.api('GET', `/v1/sessions/${run.sessionId}`)).body?.state !== 'done';) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const shown = (await owner.api('GET', `/v1/sessions/${run.sessionId}`)).body;
    expect(shown).toMatchObject({ id: run.sessionId, state: 'done', title: 'summarise the notes', exitCode: 0 });
    expect(readFileSync(path.join(repo.dir, 'summary.md'), 'utf8')).toBe('beans\n');
  }, 120_000);
});

describe('a served session', () => {
  it('runs its /loop in the server, each run ending with a result on its event stream', async () => {
    const repo = makeTempRepo({});
    const model = await scriptedOllama({ turns: () => ({ text: 'tick' }) });
    const env = { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
    const server = await startBeansServer({ cwd: repo.dir, env });
    opened.push({ repo, model, servers: [server] });
    const created = await server.api('POST', '/v1/sessions', { cwd: repo.dir });
    expect(created.status).toBe(201);
    const { id } = created.body;
    expect((await server.api('POST', `/v1/sessions/${id}/messages`, { text: '/loop 10s say tick' })).status).toBe(202);
    const events = await server.events(id, (seen) => seen.filter((event) => event.data.type === 'result' && event.data.result === 'tick').length >= 2, {
      timeoutMs: 20_000,
    });
    const results = events.filter((event) => event.data.type === 'result');
    // The command's own result, then the loop's runs.
    expect(results[0]!.data.result).toContain('It runs now, then every 10s');
    expect(results.filter((event) => event.data.result === 'tick')).toHaveLength(2);
    const ticks = model.requests.filter((request) => request.kind === 'chat' && lastUser(request) === 'say tick');
    expect(ticks[1]!.time - ticks[0]!.time).toBeGreaterThan(9_500);
  }, 40_000);
});
