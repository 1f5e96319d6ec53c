// Routines on the runners (issue 61): with a database configured, `beans routines add` makes a DBOS
// schedule; two `beans runner` processes on that database both watch it, and each tick runs once,
// as one background session on one of them (its branch at origin, pushed as beans/<id>), listed by
// `beans sessions list` and `beans routines list`. A removed routine runs no more.
import { describe, expect, it } from 'vitest';
import { postgresForFile } from '../support/postgres-per-file.ts';
import { lastUser } from '../support/script.ts';
import { runBeans, scriptedOllama } from './harness.ts';
import { git, makeFleet, runnerHome, startRunner, stop, until } from './runner-fixtures.ts';

const { unavailable, database } = postgresForFile('routines');
if (unavailable) console.warn(`routine runner tests skipped: ${unavailable}`);

interface ListedRoutine {
  id: string;
  cron: string;
  branch: string;
  origin: string;
  runs: { tick: string; sessionId: string; by: string; state?: string; exitCode?: number }[];
}

describe.skipIf(unavailable)('routines on runners', { timeout: 240_000 }, () => {
  it('two runners on one database run each tick of a routine once, as a background session of one of them', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    // Each runner has its own model server: a tick run on both would show on both.
    const models = await Promise.all([0, 1].map(() => scriptedOllama({ turns: () => ({ text: 'Nightly summary written.' }) })));
    const machines = models.map((model) => runnerHome(url, model, { runners: { sandbox: false } }));

    const bad = await runBeans(['routines', 'add', '* * * *', 'never'], { cwd: fleet.repo.dir, env: fleet.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a 5-field cron expression');
    const added = await runBeans(['routines', 'add', '* * * * *', 'summarise the notes'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('on main of');
    expect(added.stdout).toContain('The runners run it, each tick once');
    const id = /Routine ([0-9a-f]{8})/.exec(added.stdout)![1]!;
    const other = /Routine ([0-9a-f]{8})/.exec(
      (await runBeans(['routines', 'add', '* * * * *', 'removed before it ran'], { cwd: fleet.repo.dir, env: fleet.env })).stdout,
    )![1]!;
    const removed = await runBeans(['routines', 'remove', other], { cwd: fleet.repo.dir, env: fleet.env });
    expect(removed.code).toBe(0);
    expect((await runBeans(['routines', 'remove', other], { cwd: fleet.repo.dir, env: fleet.env })).code).toBe(2);
    // A routine whose branch is gone from origin by its tick: each run is a failed session saying so, and asks no model.
    git(fleet.repo.dir, 'checkout', '-q', '-b', 'gone');
    git(fleet.repo.dir, 'push', '-q', '-u', 'origin', 'gone');
    const orphan = await runBeans(['routines', 'add', '* * * * *', 'work on the gone branch'], { cwd: fleet.repo.dir, env: fleet.env });
    expect(orphan.stdout).toContain('on gone of');
    git(fleet.repo.dir, 'checkout', '-q', '-');
    git(fleet.repo.dir, 'push', '-q', 'origin', '--delete', 'gone');
    // The local store, which beans serve reads, has none of them: with a database, routines are the runners'.
    const listed = (): Promise<ListedRoutine[]> =>
      runBeans(['routines', 'list', '--json'], { cwd: fleet.repo.dir, env: fleet.env }).then((run) => JSON.parse(run.stdout).routines);
    expect(await listed()).toMatchObject([
      { id, cron: '* * * * *', branch: 'main', origin: fleet.origin, runs: [] },
      { cron: '* * * * *', branch: 'gone', runs: [] },
    ]);

    const runners = await Promise.all([startRunner(machines[0]!, 'r1'), startRunner(machines[1]!, 'r2')]);
    const started = Date.now();
    // Two ticks, each finished, on whichever runner took them.
    await until(async () => (await listed())[0]!.runs.filter((run) => run.state === 'done').length >= 2, 180_000);
    // DBOS fires a tick up to 10 s late on purpose (jitter): by now both runners have reached the second.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    // Stopped (drained), the fleet is still: every run it made is listed, and every request it sent counted.
    expect(await Promise.all(runners.map((runner) => stop(runner.child, 'SIGTERM')))).toEqual([0, 0]);
    const [routine, gone] = await listed();
    const done = routine!.runs.filter((run) => run.state === 'done');
    expect(done.length).toBeGreaterThanOrEqual(2);
    const ticks = done.map((run) => new Date(run.tick).getTime());
    for (const [index, tick] of ticks.entries()) {
      expect(new Date(tick).getSeconds()).toBe(0);
      if (index > 0) expect(tick - ticks[index - 1]!).toBe(60_000);
    }
    expect(new Set(done.map((run) => run.sessionId)).size).toBe(done.length);
    for (const run of done) expect(['r1', 'r2']).toContain(run.by);
    const runs = done.slice(0, 2);
    const asked = models.flatMap((model) => model.requests.filter((request) => request.kind === 'chat'));
    // One model request per tick across both runners: a tick run twice would have asked twice.
    expect(asked).toHaveLength(done.length);
    expect(asked.every((request) => lastUser(request) === 'summarise the notes')).toBe(true);
    // A runner's session ends with its prompt: it is not offered tools whose prompts would never fire.
    const offered = ((asked[0]!.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);
    expect(offered).toContain('read_file');
    expect(offered.filter((name) => name === 'schedule_wakeup' || name.startsWith('cron_'))).toEqual([]);
    console.log(
      `routine on 2 runners: ticks ${runs.map((run) => run.tick).join(', ')} fired by ${runs.map((run) => run.by).join(', ')}; the first ${Math.round((new Date(runs[0]!.tick).getTime() - started) / 1000)} s after the runners started; requests per runner ${models.map((model) => model.requests.filter((request) => request.kind === 'chat').length).join('/')}`,
    );

    // Each run is a background session like any other: in the list, done, its branch on origin.
    const sessions = JSON.parse((await runBeans(['sessions', 'list', '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout).background as {
      id: string;
      state: string;
      runner: string;
      title: string;
      submittedBy: string;
      baseCommit: string;
    }[];
    for (const run of runs) {
      const session = sessions.find((candidate) => candidate.id === run.sessionId);
      expect(session).toMatchObject({ state: 'done', title: 'summarise the notes', baseCommit: fleet.head });
      expect(session!.submittedBy).toContain(`routine ${id}`);
      expect(['r1', 'r2']).toContain(session!.runner);
    }
    const shown = JSON.parse((await runBeans(['sessions', 'show', runs[0]!.sessionId, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(shown.result).toMatchObject({ text: 'Nightly summary written.', change: 'no changes' });
    expect(git(fleet.origin, 'rev-parse', 'main')).toBe(fleet.head);

    expect(gone!.runs.length).toBeGreaterThanOrEqual(2);
    for (const run of gone!.runs) expect(run).toMatchObject({ state: 'failed', exitCode: 1 });
    const failed = JSON.parse((await runBeans(['sessions', 'show', gone!.runs[0]!.sessionId, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(failed.result.error).toContain(`The routine's branch gone cannot be read from ${fleet.origin}`);
  });
});
