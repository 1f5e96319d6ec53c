// The DBOS backend against a real PostgreSQL (Debian's packages, a fresh cluster on 127.0.0.1 per
// file, a fresh database per test): runs spread over worker processes, each with its own scripted
// model server, a worker killed mid-call, the global limits, detached runs, and bad databases.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresUnavailable, startPostgres, type Postgres } from '../support/postgres.ts';
import type { RecordedRequest, ScriptedServer, ScriptTurn } from '../support/script.ts';
import { parseJsonLines, runBeans, scriptedOllama, spawnBeans, type TempRepo } from './harness.ts';
import { agentFile, callsOf, ollamaEnv, releaseAgents, releaseRepo } from './workflow-fixtures.ts';

const unavailable = postgresUnavailable();
if (unavailable) console.warn(`workflow-dbos tests skipped: ${unavailable}`);

let pg: Postgres;
let databases = 0;
beforeAll(async () => {
  if (!unavailable) pg = await startPostgres();
}, 60_000);
afterAll(() => pg?.stop());

type Child = ReturnType<typeof spawnBeans>;
const children: Child[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child, 'SIGKILL')));
});

function stopChild(child: Child, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('close', (code) => resolve(code));
    child.kill(signal);
  });
}

/** A repository whose user settings choose the dbos backend, on a database of its own. */
async function dbosRepo(repo: TempRepo, settings: Record<string, unknown> = {}) {
  const url = await pg.createDatabase(`test${++databases}`);
  const config = path.join(repo.home, '.config', 'beans-agent');
  mkdirSync(config, { recursive: true });
  writeFileSync(path.join(config, 'settings.json'), JSON.stringify({ workflows: { backend: 'dbos', ...settings } }));
  return { url, env: (server: ScriptedServer) => ({ ...repo.env, ...ollamaEnv(server.url), BEANS_DATABASE_URL: url }) };
}

/** Starts `beans workflow worker` and resolves once it serves; its stderr is kept. */
async function startWorker(repo: TempRepo, env: NodeJS.ProcessEnv, id: string, extra: string[] = []) {
  const child = spawnBeans(['workflow', 'worker', '--id', id, ...extra], { cwd: repo.dir, env });
  children.push(child);
  let stderr = '';
  child.stdout.resume();
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('serving')) resolve();
    });
    child.once('close', (code) => reject(new Error(`worker ${id} exited ${code}: ${stderr}`)));
  });
  return { child, stderr: () => stderr };
}

/** Each scripted answer takes `ms` (two chunks), so concurrent calls overlap at the servers. */
function slowly(turns: (request: RecordedRequest, n: number) => ScriptTurn, ms: number) {
  return (request: RecordedRequest, n: number): ScriptTurn => {
    const turn = turns(request, n);
    if (turn.text === undefined || Array.isArray(turn.text)) return turn;
    const half = Math.ceil(turn.text.length / 2);
    return { ...turn, text: [turn.text.slice(0, half), turn.text.slice(half)], chunkDelayMs: ms };
  };
}

describe.skipIf(unavailable)('beans workflow on DBOS', { timeout: 60_000 }, () => {
  it('runs every step kind over two workers and the run process, each call once, progress as with the local backend', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo, { workerConcurrency: 1 });
    const servers = await Promise.all([0, 1, 2].map(() => scriptedOllama({ turns: slowly(releaseAgents(), 150) })));
    await startWorker(repo, env(servers[0]!), 'w1');
    await startWorker(repo, env(servers[1]!), 'w2');
    const run = await runBeans(['workflow', 'run', 'release-notes', '--input', 'since=v1.2', '-o', 'stream-json'], { cwd: repo.dir, env: env(servers[2]!), timeoutMs: 40_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseJsonLines(run.stdout);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'features written\n\nfixed 1 item(s)', workflow: 'release-notes', status: 'completed' });
    const everyCall = servers.flatMap((server) => callsOf(server.requests));
    expect(everyCall.sort()).toEqual(['checker:a', 'checker:b', 'checker:c', 'fixer', 'planner', 'planner', 'writer:features', 'writer:fixes']);
    // Same progress as the local backend: never backwards, the planner's report placed in its range.
    const progress = lines.filter((line) => line.type === 'system' && line.subtype === 'workflow_progress');
    const percents = progress.map((line) => line.percent as number);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.at(-1)).toBe(100);
    expect(progress.find((line) => line.message === 'reading history')).toMatchObject({ step: 'planner', percent: 10, step_range: [0, 20], step_percent: 50 });
    expect(progress.find((line) => line.step === 'checker (loop 2/3)')).toMatchObject({ step_range: [68.33, 76.67] });

    // `runs --json` names the worker of each call; they match the servers that answered.
    const listed = await runBeans(['workflow', 'runs', '--json'], { cwd: repo.dir, env: env(servers[2]!) });
    expect(listed.code).toBe(0);
    const [entry] = JSON.parse(listed.stdout).runs;
    expect(entry).toMatchObject({ id: lines.at(-1)!.run_id, status: 'completed', percent: 100 });
    const workers = entry.calls.map((call: { worker: string }) => call.worker);
    expect(entry.calls).toHaveLength(7);
    expect(entry.calls.every((call: { status: string }) => call.status === 'SUCCESS')).toBe(true);
    const served = servers.map((server) => callsOf(server.requests).filter((call) => call !== 'planner').length);
    expect(workers.filter((worker: string) => worker === 'w1')).toHaveLength(served[0]! + (callsOf(servers[0]!.requests).includes('planner') ? 1 : 0));
    expect(new Set(workers).size).toBeGreaterThanOrEqual(2);
  });
});
