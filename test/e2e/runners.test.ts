// Runners (issue 56) against a real PostgreSQL (Debian's package, a cluster per file, a database per
// test): background sessions queued from a clone, taken by `beans runner` processes with their own
// scripted model servers and work folders, durable on DBOS; a runner killed mid-session and the
// other finishing it; drain on SIGTERM; simultaneous starts; bad databases.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresForFile } from '../support/postgres-per-file.ts';
import { runBeans, scriptedOllama } from './harness.ts';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { git, makeFleet, runnerHome, startRunner, until, type StartedRunner } from './runner-fixtures.ts';

const { unavailable, database } = postgresForFile('runners');
if (unavailable) console.warn(`runner tests skipped: ${unavailable}`);

describe.skipIf(unavailable)('beans runner', { timeout: 120_000 }, () => {
  it('queues a session from a clone, a runner runs it on a worktree of origin, pushes beans/<id>, and sessions wait exits 0', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const model = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello from a runner\n' } }] }, { text: 'Wrote hello.txt.' }],
    });
    const machine = runnerHome(url, model, { runners: { sandbox: false } });
    await startRunner(machine, 'r1');
    const queued = await runBeans(['-p', 'write hello.txt', '--permission-mode', 'auto-edit', '--background'], {
      cwd: fleet.repo.dir,
      env: fleet.env,
      timeoutMs: 30_000,
    });
    expect(queued.stderr).toBe('');
    expect(queued.code).toBe(0);
    const id = queued.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const waited = await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 });
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    const shown = await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env });
    const session = JSON.parse(shown.stdout);
    expect(session).toMatchObject({ id, state: 'done', runner: 'r1', branch: `beans/${id}`, exitCode: 0 });
    expect(session.result).toMatchObject({ text: 'Wrote hello.txt.', files: ['hello.txt'] });
    expect(git(fleet.origin, 'show', `beans/${id}:hello.txt`)).toBe('hello from a runner');
    expect(git(fleet.origin, 'rev-parse', `beans/${id}~1`)).toBe(fleet.head);
    expect(existsSync(path.join(fleet.repo.dir, 'hello.txt'))).toBe(false);
  });

  it('a runner killed with SIGKILL mid-session: the other takes it over, no finished call runs again, the branch holds every file, wait exits 0', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const appends = path.join(fleet.outside, 'appends.txt');
    // Turn N answers a history with N answers: the third turn sleeps, the kill lands during it.
    const script = (turn: number): ScriptTurn =>
      [
        { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'first\n' } }] },
        {
          toolCalls: [
            { name: 'shell', args: { command: `echo appended >> ${appends}` } },
            { name: 'write_file', args: { path: 'b.txt', content: 'second\n' } },
          ],
        },
        { toolCalls: [{ name: 'shell', args: { command: 'sleep 25' } }] },
        { toolCalls: [{ name: 'write_file', args: { path: 'c.txt', content: 'third\n' } }] },
        { text: 'All three files are written.' },
      ][Math.min(turn, 4)]!;
    const runners: StartedRunner[] = [];
    let killed: string | undefined;
    const serve = (name: string) => (request: RecordedRequest, n: number) => {
      if (n === 2 && !killed) {
        killed = name;
        // While its `sleep 25` runs.
        setTimeout(() => runners.find((runner) => runner.id === name)!.child.kill('SIGKILL'), 2500);
      }
      return script(n);
    };
    const servers = { r1: await scriptedOllama({ turns: serve('r1') }), r2: await scriptedOllama({ turns: serve('r2') }) };
    const settings = { runners: { sandbox: false, permissionModes: ['yolo'], recoveryAfterMs: 3000 } };
    runners.push(await startRunner(runnerHome(url, servers.r1, settings), 'r1'));
    runners.push(await startRunner(runnerHome(url, servers.r2, settings), 'r2'));
    const queued = await runBeans(['-p', 'write three files', '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    expect(queued.code, queued.stderr).toBe(0);
    const id = queued.stdout.trim();
    const waiting = runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 110_000 });
    const waited = await waiting;
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    expect(killed).toBeDefined();
    const holder = runners.find((runner) => runner.id === killed)!;
    const other = runners.find((runner) => runner.id !== killed)!;
    expect(holder.child.signalCode).toBe('SIGKILL');
    // The shell call before the kill ran once; the other runner asked its model only for what came after the recorded steps.
    expect(readFileSync(appends, 'utf8')).toBe('appended\n');
    const otherTurns = servers[other.id as 'r1' | 'r2'].requests.filter((request) => request.kind === 'chat').map((request) => request.turn);
    expect(otherTurns).toEqual([3, 4]);
    const session = JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(session).toMatchObject({ state: 'done', runner: other.id, exitCode: 0, result: { text: 'All three files are written.' } });
    expect(session.result.files.sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    for (const [file, content] of [
      ['a.txt', 'first'],
      ['b.txt', 'second'],
      ['c.txt', 'third'],
    ])
      expect(git(fleet.origin, 'show', `beans/${id}:${file}`)).toBe(content);
    expect(other.stderr()).toContain(`runner ${holder.id} stopped beating`);
    // The log has each answer once, and says who took over.
    const attached = await runBeans(['attach', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 20_000 });
    expect(attached.code).toBe(0);
    expect(attached.stdout).toContain(`runner ${other.id} took the session over`);
    expect(attached.stdout.match(/⏺ write_file c\.txt/g)).toHaveLength(1);
    expect(attached.stdout.match(/⏺ shell echo appended/g)).toHaveLength(1);
  });

  it('a runner killed while the model answers: the other asks that turn again, and only that one; the finished calls do not run again', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const appends = path.join(fleet.outside, 'appends.txt');
    const runners: StartedRunner[] = [];
    let killed: string | undefined;
    const serve =
      (name: string) =>
      (_request: RecordedRequest, n: number): ScriptTurn => {
        if (n === 0) return { toolCalls: [{ name: 'shell', args: { command: `echo appended >> ${appends}` } }] };
        if (n === 1) return { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'first\n' } }] };
        if (n === 2 && !killed) {
          killed = name;
          // While its answer streams (twenty chunks, half a second apart).
          setTimeout(() => runners.find((runner) => runner.id === name)!.child.kill('SIGKILL'), 2500);
          return { text: Array.from({ length: 20 }, (_, i) => `part ${i} `), chunkDelayMs: 500 };
        }
        return { text: `answered on ${name}` };
      };
    const servers = { r1: await scriptedOllama({ turns: serve('r1') }), r2: await scriptedOllama({ turns: serve('r2') }) };
    const settings = { runners: { sandbox: false, permissionModes: ['yolo'], recoveryAfterMs: 3000 } };
    runners.push(await startRunner(runnerHome(url, servers.r1, settings), 'r1'));
    runners.push(await startRunner(runnerHome(url, servers.r2, settings), 'r2'));
    const id = (
      await runBeans(['-p', 'append, write, answer', '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })
    ).stdout.trim();
    expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 90_000 })).code).toBe(0);
    const other = runners.find((runner) => runner.id !== killed)!;
    expect(readFileSync(appends, 'utf8')).toBe('appended\n');
    const chats = (name: string) => servers[name as 'r1' | 'r2'].requests.filter((request) => request.kind === 'chat').map((request) => request.turn);
    expect(chats(killed!)).toEqual([0, 1, 2]);
    expect(chats(other.id)).toEqual([2]);
    const session = JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(session).toMatchObject({ state: 'done', runner: other.id, exitCode: 0, result: { text: `answered on ${other.id}`, files: ['a.txt'] } });
    expect(git(fleet.origin, 'show', `beans/${id}:a.txt`)).toBe('first');
  });

  it('two runners and a --background started in the same second on a fresh database all start, and both runners take sessions', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const model = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'shell', args: { command: 'sleep 2' } }] }, { text: 'slept' }] });
    const settings = { runners: { sandbox: false, permissionModes: ['yolo'] } };
    // The submitter makes DBOS's tables too when no runner has yet: all three race for the set-up.
    const [first, second, queued] = await Promise.all([
      startRunner(runnerHome(url, model, settings), 'r1'),
      startRunner(runnerHome(url, model, settings), 'r2'),
      runBeans(['-p', 'sleep at the start', '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 }),
    ]);
    for (const runner of [first, second]) expect(runner.stderr()).not.toMatch(/dbos_migrations_pkey|tuple concurrently updated|duplicate key/);
    expect(queued.stderr).toBe('');
    expect(queued.code).toBe(0);
    const ids = [queued.stdout.trim()];
    for (let i = 0; i < 2; i++)
      ids.push((await runBeans(['-p', `sleep ${i}`, '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim());
    for (const id of ids) expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 })).code).toBe(0);
    const listed = JSON.parse((await runBeans(['sessions', 'list', '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    const runnersUsed = new Set(listed.background.map((session: { runner: string }) => session.runner));
    // One session per runner at a time (runners.concurrency 1): the second went to the other runner.
    expect(runnersUsed).toEqual(new Set(['r1', 'r2']));
    const text = (await runBeans(['sessions', 'list'], { cwd: fleet.repo.dir, env: fleet.env })).stdout;
    for (const id of ids) expect(text).toMatch(new RegExp(`${id}  .*done +r[12] +beans/${id}`));
  });

  it('drains on SIGTERM: the session running finishes within the grace period, the runner exits 0', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const started: { runner?: StartedRunner } = {};
    const model = await scriptedOllama({
      turns: (_request, n) => {
        if (n === 0) setTimeout(() => started.runner!.child.kill('SIGTERM'), 1000);
        return n === 0 ? { toolCalls: [{ name: 'shell', args: { command: 'sleep 3 && echo slept' } }] } : { text: 'finished after the signal' };
      },
    });
    const runner = (started.runner = await startRunner(
      runnerHome(url, model, { runners: { sandbox: false, permissionModes: ['yolo'], drainGraceMs: 30_000 } }),
      'r1',
    ));
    const id = (await runBeans(['-p', 'sleep', '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim();
    const exit = await new Promise<number | null>((resolve) => runner.child.once('close', resolve));
    expect(exit, `${runner.child.signalCode} ${runner.stderr()}`).toBe(0);
    expect(runner.stderr()).toContain('runner r1 draining (SIGTERM)');
    expect(runner.stderr()).toContain('runner r1 stopped.');
    const session = JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(session).toMatchObject({ state: 'done', exitCode: 0, result: { text: 'finished after the signal' } });
  });

  it('drains on SIGTERM: past the grace period the session goes to another runner, which finishes it', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const started: { first?: StartedRunner } = {};
    const slow =
      (name: string) =>
      (_request: RecordedRequest, n: number): ScriptTurn => {
        if (n === 0 && name === 'r1') setTimeout(() => started.first!.child.kill('SIGTERM'), 1000);
        return n === 0 ? { toolCalls: [{ name: 'shell', args: { command: 'sleep 6 && echo slept' } }] } : { text: `finished on ${name}` };
      };
    const settings = { runners: { sandbox: false, permissionModes: ['yolo'], drainGraceMs: 1500 } };
    const first = (started.first = await startRunner(runnerHome(url, await scriptedOllama({ turns: slow('r1') }), settings), 'r1'));
    const id = (await runBeans(['-p', 'sleep', '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim();
    // The second runner starts once the first holds the session.
    await until(
      async () => JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout).runner === 'r1',
      20_000,
    );
    const second = await startRunner(runnerHome(url, await scriptedOllama({ turns: slow('r2') }), settings), 'r2');
    const exit = await new Promise<number | null>((resolve) => first.child.once('close', resolve));
    expect(exit).toBe(0);
    expect(first.stderr()).toContain('1 session goes on with other runners');
    const waited = await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 });
    expect(waited.code).toBe(0);
    const session = JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(session).toMatchObject({ state: 'done', runner: 'r2', result: { text: 'finished on r2' } });
    expect(second.child.exitCode).toBeNull();
  });

  it('a bad database: one sentence and exit 3, for the runner, --background, sessions list and serve', async () => {
    const fleet = makeFleet('postgresql://beans@127.0.0.1:1/nowhere');
    const model = await scriptedOllama({ turns: [{ text: 'unused' }] });
    const machine = runnerHome('postgresql://beans@127.0.0.1:1/nowhere', model, { runners: { sandbox: false } });
    for (const [args, cwd, env] of [
      [['runner', '--id', 'r1', '--workdir', machine.workdir], machine.home, machine.env],
      [['-p', 'hi', '--background'], fleet.repo.dir, fleet.env],
      [['sessions', 'list'], fleet.repo.dir, fleet.env],
      [['serve'], fleet.repo.dir, fleet.env],
    ] as const) {
      const run = await runBeans([...args], { cwd, env, timeoutMs: 30_000 });
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^beans: Cannot reach PostgreSQL at beans@127\.0\.0\.1:1\/nowhere: connection refused\./);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a runner killed and started again under the same --id recovers its session itself (DBOS recovery): the finished call does not run again', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const appends = path.join(fleet.outside, 'appends.txt');
    const state: { runner?: StartedRunner; killed?: boolean } = {};
    const model = await scriptedOllama({
      turns: (_request, n) => {
        if (n === 1 && !state.killed) {
          state.killed = true;
          setTimeout(() => state.runner!.child.kill('SIGKILL'), 1500);
        }
        return [
          { toolCalls: [{ name: 'shell', args: { command: `echo once >> ${appends}` } }] },
          { toolCalls: [{ name: 'shell', args: { command: 'sleep 5' } }] },
          { text: 'recovered' },
        ][Math.min(n, 2)]!;
      },
    });
    // No other runner, and one that would wait a minute before declaring it dead: only its own restart recovers it.
    const machine = runnerHome(url, model, { runners: { sandbox: false, permissionModes: ['yolo'], recoveryAfterMs: 60_000 } });
    state.runner = await startRunner(machine, 'solo');
    const id = (
      await runBeans(['-p', 'append, then sleep', '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })
    ).stdout.trim();
    await new Promise((resolve) => state.runner!.child.once('close', resolve));
    const again = await startRunner(machine, 'solo');
    expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 })).code).toBe(0);
    expect(readFileSync(appends, 'utf8')).toBe('once\n');
    expect(JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout)).toMatchObject({
      state: 'done',
      runner: 'solo',
      result: { text: 'recovered' },
    });
    // Turn 0 and 1 were asked once each, before the kill; after it only the last.
    expect(model.requests.filter((request) => request.kind === 'chat').map((request) => request.turn)).toEqual([0, 1, 2]);
    expect(again.child.exitCode).toBeNull();
  });

  it('runners.maxSessionsPerProvider bounds a provider across every runner: two runners, a limit of 1, the sessions run one after the other', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const spans: { prompt: string; at: number; turn: number }[] = [];
    const script = (request: RecordedRequest, n: number): ScriptTurn => {
      spans.push({
        prompt: JSON.stringify((request.body as { messages: unknown[] }).messages.find((m) => (m as { role: string }).role === 'user')),
        at: Date.now(),
        turn: n,
      });
      return n === 0 ? { toolCalls: [{ name: 'shell', args: { command: 'sleep 2' } }] } : { text: 'slept' };
    };
    const settings = { runners: { sandbox: false, permissionModes: ['yolo'], maxSessionsPerProvider: 1 } };
    await startRunner(runnerHome(url, await scriptedOllama({ turns: script }), settings), 'r1');
    await startRunner(runnerHome(url, await scriptedOllama({ turns: script }), settings), 'r2');
    const ids = await Promise.all(
      ['first', 'second'].map(async (name) =>
        (await runBeans(['-p', name, '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim(),
      ),
    );
    for (const id of ids) expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 })).code).toBe(0);
    // Each session's first request comes after the other one's last: never two at once on ollama.
    const of = (name: string) => spans.filter((span) => span.prompt.includes(name));
    const [a, b] = [of('first'), of('second')].sort((x, y) => x[0]!.at - y[0]!.at);
    expect(a!.at(-1)!.at).toBeLessThan(b![0]!.at);
  });
});
