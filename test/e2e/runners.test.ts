// Runners (issue 56) against a real PostgreSQL (Debian's package, a cluster per file, a database per
// test): background sessions queued from a clone, taken by `beans runner` processes with their own
// scripted model servers and work folders, durable on DBOS; a runner killed mid-session and the
// other finishing it; drain on SIGTERM; simultaneous starts; bad databases.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUnavailable, startPostgres, type Postgres } from '../support/postgres.ts';
import { runBeans, scriptedOllama } from './harness.ts';
import { git, makeFleet, runnerHome, startRunner } from './runner-fixtures.ts';

const unavailable = postgresUnavailable();
if (unavailable) console.warn(`runner tests skipped: ${unavailable}`);

let pg: Postgres;
let databases = 0;
beforeAll(async () => {
  if (!unavailable) pg = await startPostgres();
}, 60_000);
afterAll(() => pg?.stop());

const database = () => pg.createDatabase(`runners${++databases}`);

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
    void readFileSync;
  });
});
