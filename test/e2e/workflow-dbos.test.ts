// The DBOS backend against a real PostgreSQL (Debian's packages, a fresh cluster on 127.0.0.1 per
// file, a fresh database per test): runs spread over worker processes, each with its own scripted
// model server, a worker killed mid-call, the global limits, detached runs, and bad databases.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresUnavailable, startPostgres, type Postgres } from '../support/postgres.ts';
import type { RecordedRequest, ScriptedServer, ScriptTurn } from '../support/script.ts';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
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
    const run = await runBeans(['workflow', 'run', 'release-notes', '--input', 'since=v1.2', '-o', 'stream-json'], {
      cwd: repo.dir,
      env: env(servers[2]!),
      timeoutMs: 40_000,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseJsonLines(run.stdout);
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'features written\n\nfixed 1 item(s)',
      workflow: 'release-notes',
      status: 'completed',
    });
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

  it('a worker killed mid-call and started again under the same id finishes the call; no finished call runs twice', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo);
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
    let killed = false;
    // The first worker's server: item b's check hangs, and the worker is killed once it asked.
    const first = await scriptedOllama({
      turns: (request, n) => {
        const turn = releaseAgents()(request, n);
        if (callsOf([request])[0] === 'checker:b' && !killed) {
          killed = true;
          setTimeout(() => worker!.child.kill('SIGKILL'), 100);
          return { text: ['{"item": "b",', ' "ok": false}'], chunkDelayMs: 10_000 };
        }
        return turn;
      },
    });
    const second = await scriptedOllama({ turns: releaseAgents() });
    const runServer = await scriptedOllama({ turns: releaseAgents() });
    worker = await startWorker(repo, env(first), 'w1');
    const running = runBeans(['workflow', 'run', 'release-notes', '--no-work', '-o', 'json'], { cwd: repo.dir, env: env(runServer), timeoutMs: 50_000 });
    await new Promise<void>((resolve) => worker!.child.once('close', () => resolve()));
    expect(worker.child.signalCode).toBe('SIGKILL');
    const restarted = await startWorker(repo, env(second), 'w1');
    const run = await running;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'features written\n\nfixed 1 item(s)' });
    expect(callsOf(runServer.requests)).toEqual([]);
    // Before the kill: planner, both writers, item a; then only item b (cut off) again, item c, the fixer.
    expect(callsOf(first.requests).sort()).toEqual(['checker:a', 'checker:b', 'planner', 'planner', 'writer:features', 'writer:fixes']);
    expect(callsOf(second.requests).sort()).toEqual(['checker:b', 'checker:c', 'fixer']);
    expect(restarted.stderr()).toMatch(/call \S+\/2\/i1\/0\/a1 \(team:checker\) started/);
    expect(restarted.stderr()).not.toMatch(/\/a2 /);
  });

  it('the run process killed mid-run: a worker continues the run, the call in flight is not repeated', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo);
    let runner: Child | undefined;
    let killed = false;
    const server = await scriptedOllama({
      turns: (request, n) => {
        if (callsOf([request])[0] === 'checker:b' && !killed) {
          killed = true;
          runner!.kill('SIGKILL');
          return { text: ['{"item": "b",', ' "ok": false}'], chunkDelayMs: 1000 };
        }
        return releaseAgents()(request, n);
      },
    });
    const runServer = await scriptedOllama({ turns: releaseAgents() });
    const worker = await startWorker(repo, env(server), 'w1');
    runner = spawnBeans(['workflow', 'run', 'release-notes', '--no-work', '-o', 'stream-json'], { cwd: repo.dir, env: env(runServer) });
    children.push(runner);
    let out = '';
    runner.stdout.on('data', (chunk) => (out += chunk));
    await new Promise((resolve) => runner!.once('close', resolve));
    const runId = String(parseJsonLines(out)[0]!.run_id);
    // About 10 s without its heartbeat, then the worker takes it over.
    const waited = await runBeans(['workflow', 'wait', runId, '-o', 'json'], { cwd: repo.dir, env: env(runServer), timeoutMs: 45_000 });
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ subtype: 'success', run_id: runId, result: 'features written\n\nfixed 1 item(s)' });
    expect(worker.stderr()).toMatch(new RegExp(`run ${runId} lost its process .*; continuing it as ${runId}@g1-t`));
    expect(callsOf(server.requests).sort()).toEqual(['checker:a', 'checker:b', 'checker:c', 'fixer', 'planner', 'planner', 'writer:features', 'writer:fixes']);
  });

  it('SIGTERM drains a worker: its call in flight finishes, it exits 0, another worker takes the rest', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo);
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
    let signalled = false;
    const first = await scriptedOllama({
      turns: (request, n) => {
        if (callsOf([request])[0] === 'checker:b' && !signalled) {
          signalled = true;
          setTimeout(() => worker!.child.kill('SIGTERM'), 100);
          return { text: ['{"item": "b",', ' "ok": false}'], chunkDelayMs: 1500 };
        }
        return releaseAgents()(request, n);
      },
    });
    const second = await scriptedOllama({ turns: releaseAgents() });
    const runServer = await scriptedOllama({ turns: releaseAgents() });
    worker = await startWorker(repo, env(first), 'w1');
    const running = runBeans(['workflow', 'run', 'release-notes', '--no-work', '-o', 'json'], { cwd: repo.dir, env: env(runServer), timeoutMs: 50_000 });
    const code = await new Promise<number | null>((resolve) => worker!.child.once('close', resolve));
    expect(code).toBe(0);
    expect(worker.stderr()).toMatch(/worker w1 stopping \(SIGTERM\): finishing the calls in flight/);
    expect(worker.stderr()).toMatch(/\/2\/i1\/0\/a1 finished/);
    await startWorker(repo, env(second), 'w2');
    const run = await running;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'features written\n\nfixed 1 item(s)' });
    // Item b ran once, on the draining worker; the rest went to the other one.
    expect(callsOf(first.requests).filter((call) => call === 'checker:b')).toHaveLength(1);
    expect(callsOf(second.requests).sort()).toEqual(['checker:c', 'fixer']);
  });

  it('holds the global concurrency limit and the rate limit across workers', async () => {
    const calls = 6;
    const repo = releaseRepo();
    repo.write(
      '.beans/workflows/fan.md',
      `---\nname: fan\nsteps:\n  - parallel:\n${Array.from({ length: calls }, (_, i) => `      - { call: ./agents/writer.md, input: { part: "p${i}" }, store: "r${i}" }`).join('\n')}\n---\n`,
    );
    const { env } = await dbosRepo(repo, { maxConcurrentCalls: 2, rateLimit: { calls: 3, periodMs: 1000 } });
    const answer = (): ScriptTurn => ({ text: ['half', ' done'], chunkDelayMs: 800 });
    const servers = await Promise.all([0, 1, 2].map(() => scriptedOllama({ turns: answer })));
    await startWorker(repo, env(servers[0]!), 'w1');
    await startWorker(repo, env(servers[1]!), 'w2');
    const run = await runBeans(['workflow', 'run', 'fan', '-o', 'json'], { cwd: repo.dir, env: env(servers[2]!), timeoutMs: 50_000 });
    expect(run.code).toBe(0);
    const arrivals = servers
      .flatMap((server) => server.requests.filter((request) => request.kind === 'chat').map((request) => request.time))
      .sort((a, b) => a - b);
    expect(arrivals).toHaveLength(calls);
    // Each answer takes >= 800 ms: requests arriving within 700 ms of each other overlapped (the
    // margin leaves room for a busy machine's dispatch, which a 400/350 ms pair did not).
    const within = (ms: number) => Math.max(...arrivals.map((time) => arrivals.filter((other) => other <= time && other > time - ms).length));
    expect(within(700)).toBeLessThanOrEqual(2);
    expect(within(700)).toBe(2);
    // At most 3 calls start in any second (900 ms: the slack of dispatch and request latency).
    expect(within(900)).toBeLessThanOrEqual(3);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(1000);
  });

  it("counts the rate limit per provider, and runs each call with its run's provider on any worker", { timeout: 90_000 }, async () => {
    const calls = 6;
    const repo = releaseRepo();
    repo.write(
      '.beans/workflows/fan.md',
      `---\nname: fan\nsteps:\n  - parallel:\n${Array.from({ length: calls }, (_, i) => `      - { call: ./agents/writer.md, input: { part: "p${i}" }, store: "r${i}" }`).join('\n')}\n---\n`,
    );
    const { url, env } = await dbosRepo(repo, { rateLimit: { calls: 2, periodMs: 3000 } });
    const answer = (): ScriptTurn => ({ text: 'written' });
    const ollama = await scriptedOllama({ turns: answer });
    const openai = await startScriptedOpenAi({ turns: answer });
    const openaiEnv = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${openai.url}/v1` };
    // One worker, itself configured for Ollama, with an OpenAI endpoint of its own too.
    await startWorker(repo, { ...env(ollama), ...openaiEnv }, 'w1');
    const [onOllama, onOpenAi] = await Promise.all([
      runBeans(['workflow', 'run', 'fan', '--no-work', '-o', 'json'], { cwd: repo.dir, env: env(ollama), timeoutMs: 70_000 }),
      runBeans(['workflow', 'run', 'fan', '--no-work', '-o', 'json'], {
        cwd: repo.dir,
        env: { ...env(ollama), ...openaiEnv, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' },
        timeoutMs: 70_000,
      }),
    ]);
    expect(onOllama.code).toBe(0);
    expect(onOpenAi.code).toBe(0);
    const chats = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat');
    // The OpenAI run's calls went to OpenAI with its model, though the worker's own provider is Ollama.
    expect(chats(ollama)).toHaveLength(calls);
    expect(chats(openai)).toHaveLength(calls);
    expect(chats(openai).map((request) => (request.body as { model: string }).model)).toEqual(Array(calls).fill('gpt-5-mini'));
    // When each call started, by the database's clock (what the limit counts; arrivals at the servers
    // add the worker's varying latency on a busy machine).
    const rows = await pg.sql(
      "SELECT queue_partition_key AS provider, started_at_epoch_ms::float8 AS at FROM dbos.workflow_status WHERE queue_name = 'beans_calls'",
      url.slice(url.lastIndexOf('/') + 1),
    );
    const starts = (provider?: string) =>
      rows
        .filter((row) => !provider || row.provider === provider)
        .map((row) => Number(row.at))
        .sort((a, b) => a - b);
    const within = (times: number[], ms: number) => Math.max(...times.map((time) => times.filter((other) => other <= time && other > time - ms).length));
    for (const provider of ['ollama', 'openai']) {
      expect(starts(provider)).toHaveLength(calls);
      expect(within(starts(provider), 2900)).toBeLessThanOrEqual(2);
    }
    // 6 calls per provider take >= 6 s; one limit for both would have needed >= 15 s for all 12.
    expect(starts().at(-1)! - starts()[0]!).toBeLessThan(14_000);
  });

  it('a worker that changes the shared per-worker limit says so', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo);
    const server = await scriptedOllama({ turns: releaseAgents() });
    await startWorker(repo, env(server), 'w1', ['--concurrency', '2']);
    const second = await startWorker(repo, env(server), 'w2', ['--concurrency', '3']);
    expect(second.stderr()).toContain('every worker now runs at most 3 calls at once (it was 2)');
  });

  it('a detached run is followed from another process to its result', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo);
    const workerServer = await scriptedOllama({ turns: releaseAgents() });
    const runServer = await scriptedOllama({ turns: releaseAgents() });
    const detached = await runBeans(['workflow', 'run', 'release-notes', '--detach'], { cwd: repo.dir, env: env(runServer) });
    expect(detached.code).toBe(0);
    const runId = detached.stdout.trim();
    expect(runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(detached.stderr).toContain(`beans workflow wait ${runId}`);
    const queued = JSON.parse((await runBeans(['workflow', 'runs', '--json'], { cwd: repo.dir, env: env(runServer) })).stdout).runs[0];
    expect(queued).toMatchObject({ id: runId, status: 'running', percent: 0 });
    await startWorker(repo, env(workerServer), 'w1');
    const waited = await runBeans(['workflow', 'wait', runId, '-o', 'stream-json'], { cwd: repo.dir, env: env(runServer), timeoutMs: 40_000 });
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    const lines = parseJsonLines(waited.stdout);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', run_id: runId, result: 'features written\n\nfixed 1 item(s)' });
    const percents = lines.filter((line) => line.subtype === 'workflow_progress').map((line) => line.percent as number);
    expect(percents.at(-1)).toBe(100);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(callsOf(runServer.requests)).toEqual([]);
    expect(callsOf(workerServer.requests)).toHaveLength(8);
  });

  it('cancel stops a run from another process; resume finishes it without repeating finished calls', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo);
    let slow = true;
    const server = await scriptedOllama({
      turns: (request, n) =>
        callsOf([request])[0] === 'checker:b' && slow ? { text: ['{"item": "b",', ' "ok": false}'], chunkDelayMs: 10_000 } : releaseAgents()(request, n),
    });
    const child = spawnBeans(['workflow', 'run', 'release-notes', '-o', 'stream-json'], { cwd: repo.dir, env: env(server) });
    children.push(child);
    let out = '';
    const reachedB = new Promise<void>((resolve) => child.stdout.on('data', (chunk) => (out += chunk).includes('"step":"checker (loop 2/3)"') && resolve()));
    let err = '';
    child.stderr.on('data', (chunk) => (err += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    await reachedB;
    const runId = String(parseJsonLines(out.split('\n')[0]!)[0]!.run_id);
    const cancelled = await runBeans(['workflow', 'cancel', runId, '-o', 'json'], { cwd: repo.dir, env: env(server) });
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toEqual({ run_id: runId, status: 'interrupted' });
    expect(await closed, `${out}\n${err}`).toBe(130);
    expect(parseJsonLines(out).at(-1)).toMatchObject({ type: 'result', subtype: 'error_interrupted', status: 'interrupted' });
    slow = false;
    const before = callsOf(server.requests);
    const resumed = await runBeans(['workflow', 'resume', runId, '-o', 'json'], { cwd: repo.dir, env: env(server), timeoutMs: 40_000 });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ subtype: 'success', run_id: runId, result: 'features written\n\nfixed 1 item(s)' });
    expect(callsOf(server.requests).slice(before.length).sort()).toEqual(['checker:b', 'checker:c', 'fixer']);
  });

  it('a database it cannot use is one sentence and exit 3, with nothing written', async () => {
    const repo = releaseRepo();
    const server = await scriptedOllama({ turns: releaseAgents() });
    const base = { ...repo.env, ...ollamaEnv(server.url) };
    const run = (env: NodeJS.ProcessEnv) => runBeans(['workflow', 'run', 'release-notes', '--backend', 'dbos'], { cwd: repo.dir, env });

    const noUrl = await run(base);
    expect(noUrl.code).toBe(3);
    expect(noUrl.stderr).toMatch(/set workflows\.databaseUrl \(or the environment variable BEANS_DATABASE_URL\)/);

    const closed = await run({ ...base, BEANS_DATABASE_URL: `postgresql://beans@127.0.0.1:1/beans` });
    expect(closed.code).toBe(3);
    expect(closed.stderr.trim()).toMatch(/^beans: Cannot reach PostgreSQL at beans@127\.0\.0\.1:1\/beans: connection refused\./);

    const stranger = await run({ ...base, BEANS_DATABASE_URL: `postgresql://nobody:secret@127.0.0.1:${pg.port}/beans` });
    expect(stranger.code).toBe(3);
    expect(stranger.stderr).toMatch(/PostgreSQL at nobody@127\.0\.0\.1:\d+\/beans refused the credentials \(role "nobody" does not exist\)/);
    expect(stranger.stderr).not.toContain('secret');

    const shop = await pg.createDatabase('shop');
    await pg.sql('CREATE TABLE orders (id int)', 'shop');
    const taken = await run({ ...base, BEANS_DATABASE_URL: shop });
    expect(taken.code).toBe(3);
    expect(taken.stderr).toMatch(/already holds another program's tables \(such as public\.orders\); give Beans a database of its own/);
    expect(await pg.sql("SELECT nspname FROM pg_namespace WHERE nspname IN ('beans', 'dbos')", 'shop')).toEqual([]);
    expect(callsOf(server.requests)).toEqual([]);
  });

  // The local backend's cases (test/e2e/workflow.test.ts) that do not read .beans/runs, on DBOS with
  // the run process serving its own calls: same output, same exit codes.
  it('as with the local backend: text output, retries with backoff, maxDurationMs (exit 4), an invalid workflow (exit 2)', async () => {
    const repo = releaseRepo();
    repo.write(
      'flaky.md',
      '---\nname: flaky\ndurability:\n  retry: { maxAttempts: 3, backoffMs: 100, backoffMultiplier: 2 }\nsteps:\n  - call: ./worker.md\n    store: answer\n---\n',
    );
    repo.write('worker.md', agentFile('worker', 'worker'));
    repo.write(
      'slow.md',
      '---\nname: slow\ndurability:\n  maxDurationMs: 800\nsteps:\n  - transform: "\'quick\'"\n    store: first\n  - call: ./worker.md\n    store: answer\n---\n',
    );
    repo.write('.beans/workflows/broken.md', '---\nname: broken\nsteps:\n  - transform: "1"\n  - call: nobody-here\n---\n');
    const { env } = await dbosRepo(repo);

    const server = await scriptedOllama({ turns: releaseAgents() });
    const text = await runBeans(['workflow', 'run', '.beans/workflows/release-notes.md'], { cwd: repo.dir, env: env(server) });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('features written\n\nfixed 1 item(s)\n');
    expect(text.stderr).toMatch(/^\[##---+\] {2}10% planner 0-20% · \d+\.\ds · reading history$/m);
    expect(text.stderr).toMatch(/beans: run \S+ completed in \d+\.\ds\.\n$/);

    const flakyServer = await scriptedOllama({
      turns: [{ text: 'done at last' }],
      faults: [
        { status: 400, body: { error: 'bad request' } },
        { status: 400, body: { error: 'bad request' } },
      ],
    });
    const flaky = await runBeans(['workflow', 'run', 'flaky.md'], { cwd: repo.dir, env: env(flakyServer) });
    expect(flaky.code).toBe(0);
    expect(flaky.stdout).toBe('done at last\n');
    expect(flaky.stderr).toMatch(/attempt 1 failed .*retrying in 100 ms/);
    expect(flaky.stderr).toMatch(/attempt 2 failed .*retrying in 200 ms/);
    const chats = flakyServer.requests.filter((request) => request.kind === 'chat');
    expect(chats.map((request) => request.fault ?? 'ok')).toEqual([400, 400, 'ok']);
    expect(chats[2]!.time - chats[1]!.time).toBeGreaterThanOrEqual(190);

    const slowServer = await scriptedOllama({ turns: [{ text: ['slow', ' answer'], chunkDelayMs: 5000 }] });
    const slow = await runBeans(['workflow', 'run', 'slow.md', '-o', 'json'], { cwd: repo.dir, env: env(slowServer) });
    expect(slow.code).toBe(4);
    const result = JSON.parse(slow.stdout);
    expect(result).toMatchObject({ subtype: 'error_max_duration', is_error: true, status: 'timed_out' });
    expect(result.result).toMatch(/maxDurationMs of 800 ms/);
    const listed = JSON.parse((await runBeans(['workflow', 'runs', '--json'], { cwd: repo.dir, env: env(slowServer) })).stdout).runs;
    expect(listed.find((run: { id: string }) => run.id === result.run_id)).toMatchObject({ status: 'timed_out' });
    // The cut-off call was cancelled, not left to finish on its own.
    expect(listed.find((run: { id: string }) => run.id === result.run_id).calls).toEqual([expect.objectContaining({ status: 'CANCELLED' })]);

    const broken = await runBeans(['workflow', 'run', 'broken'], { cwd: repo.dir, env: env(server) });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.md:5: there is no agent "nobody-here"/);
    expect(JSON.parse((await runBeans(['workflow', 'runs', '--json'], { cwd: repo.dir, env: env(server) })).stdout).runs).toHaveLength(3);
  });

  // Last: it takes the shared server down for a moment.
  it('a worker losing the database mid-call retries with backoff, says so, and the run completes', async () => {
    const repo = releaseRepo();
    const { env } = await dbosRepo(repo);
    let bounced: Promise<void> | undefined;
    const server = await scriptedOllama({
      turns: (request, n) => {
        if (callsOf([request])[0] === 'checker:b' && !bounced) {
          bounced = pg.bounce(1500);
          return { text: ['{"item": "b",', ' "ok": false}'], chunkDelayMs: 2500 };
        }
        return releaseAgents()(request, n);
      },
    });
    const runServer = await scriptedOllama({ turns: releaseAgents() });
    const worker = await startWorker(repo, env(server), 'w1');
    const run = await runBeans(['workflow', 'run', 'release-notes', '--no-work', '-o', 'json'], { cwd: repo.dir, env: env(runServer), timeoutMs: 50_000 });
    await bounced;
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'features written\n\nfixed 1 item(s)' });
    expect(worker.stderr()).toMatch(/Database connection failed: .*Retrying in [\d.]+s \(attempt \d+\)|lost the database .*retrying in \d+ ms/);
    expect(callsOf(server.requests).filter((call) => call === 'checker:b')).toHaveLength(1);
  });
});
