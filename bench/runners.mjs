// Runners (issue 56): what durability costs, how many sessions a fleet finishes, how fast it recovers.
// Run: pnpm run build && node bench/runners.mjs   (needs PostgreSQL: Debian's postgresql package)
//   TURNS=40 ROUNDS=5 SESSIONS=24 RECOVERIES=3 to change the sizes.
//
// A: durable overhead per step. One session of TURNS turns against a zero-latency scripted Ollama,
//    each turn a tool call and its result, run as a local session (its JSONL file, no database) and
//    as a runner runs it (a DBOS workflow whose every model answer and tool result is a DBOS step in
//    PostgreSQL on 127.0.0.1); the difference per step (2 steps a turn). A1 with read_file (the
//    step's write alone), A2 with write_file (also the commit of the change and its patch in the step).
// B: sessions per minute: SESSIONS short sessions (a read_file, then the answer) queued at once and
//    finished by 1, 2 and 4 `beans runner` processes (runners.concurrency 2 each), from the first
//    queued to the last finished.
// C: recovery time after SIGKILL: two runners (runners.recoveryAfterMs 3000, beats every second), a
//    session whose second turn runs a long command; the runner holding it is killed once the command
//    started, and the time is taken to the other runner's claim, and to the command running again there.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createAgentSession } from '../packages/core/dist/index.js';
import { queueSession } from '../packages/core/dist/runners/index.js';
import { sessionSteps } from '../packages/core/dist/runners/steps.js';
import { Worktrees } from '../packages/core/dist/runners/worktree.js';
import { postgresUnavailable, startPostgres } from '../test/support/postgres.ts';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';
import { BEANS, ROOT, fmt, median, tempRepo } from './lib.mjs';

const TURNS = Number(process.env.TURNS ?? 40);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const SESSIONS = Number(process.env.SESSIONS ?? 24);
const RECOVERIES = Number(process.env.RECOVERIES ?? 3);
// The same call every turn is what the loop detector stops: off, for both.
const LOOPS_OFF = { 'loopDetection.enabled': false };
process.noDeprecation = true; // pg's note on DBOS's use of one client: nothing to act on
const missing = postgresUnavailable();
if (missing) {
  console.log(`runners benchmark skipped: ${missing}`);
  process.exit(0);
}
// The DBOS the runner code uses (packages/core's), not another copy.
const { DBOS } = await import(pathToFileURL(createRequire(path.join(ROOT, 'packages/core/package.json')).resolve('@dbos-inc/dbos-sdk')).href);

const postgres = await startPostgres();
const git = (cwd, ...args) =>
  new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args.join(' ')} exited ${code}`))));
  });

/** A committed repository with a bare origin, the shape a runner works on. */
async function fleetRepo() {
  const repo = tempRepo();
  writeFileSync(path.join(repo.dir, 'README.md'), '# bench\n');
  await git(repo.dir, 'add', '-A');
  await git(repo.dir, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'start');
  const origin = path.join(path.dirname(repo.dir), 'origin.git');
  await git(path.dirname(repo.dir), 'init', '-q', '--bare', origin);
  await git(repo.dir, 'remote', 'add', 'origin', origin);
  await git(repo.dir, 'push', '-q', '-u', 'origin', 'HEAD:main');
  return { ...repo, origin, head: await git(repo.dir, 'rev-parse', 'HEAD') };
}

try {
  const a = await benchOverhead();
  const b = await benchThroughput();
  const c = await benchRecovery();
  console.log(`runners, PostgreSQL 15 on 127.0.0.1 (fsync off), zero-latency scripted Ollama:`);
  for (const [name, row] of Object.entries(a))
    console.log(
      `  ${name} ${fmt(row.local / (2 * TURNS))} per step local, ${fmt(row.durable / (2 * TURNS))} durable: overhead ${fmt(row.overhead)} per step (median of ${ROUNDS}, ${TURNS} turns)`,
    );
  for (const { runners, seconds, perMinute } of b)
    console.log(`  B ${SESSIONS} sessions on ${runners} runner${runners > 1 ? 's' : ' '}   ${perMinute.toFixed(1)} sessions/min (${seconds.toFixed(1)} s)`);
  console.log(
    `  C recovery after SIGKILL: claimed by the other runner after ${fmt(median(c.map((r) => r.claimed)))}, its command running again after ${fmt(median(c.map((r) => r.rerun)))} (median of ${c.length}; each: ${c.map((r) => `${(r.rerun / 1000).toFixed(1)} s`).join(', ')})`,
  );
} finally {
  postgres.stop();
}

async function benchOverhead() {
  const repo = await fleetRepo();
  const turnsOf = (tool) => (request) => {
    const answered = request.body.messages.filter((message) => message.role === 'assistant').length;
    if (answered >= TURNS) return { text: 'done', usage: { input: 10, output: 2 } };
    const args = tool === 'read_file' ? { path: 'README.md' } : { path: `f${answered}.txt`, content: `${answered}\n` };
    return { toolCalls: [{ name: tool, args }], usage: { input: 10, output: 2 } };
  };
  let currentTurns = turnsOf('read_file');
  const server = await startScriptedOllama({ turns: (request) => currentTurns(request) });
  const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
  const url = await postgres.createDatabase('bench_a');
  const { prepareRunnerDatabase } = await import('../packages/core/dist/runners/database.js');
  await prepareRunnerDatabase(url);
  DBOS.setConfig({
    name: 'beans-bench',
    systemDatabaseUrl: url,
    applicationVersion: 'bench',
    logger: { info() {}, debug() {}, warn() {}, error: console.error },
  });
  const worktrees = new Worktrees(path.join(repo.home, 'work'), { name: 'bench', email: 'bench@localhost' });
  let round = 0;
  const runDurable = DBOS.registerWorkflow(
    async (id) => {
      const worktree = await worktrees.prepare({ id, origin: repo.origin, baseCommit: repo.head, branch: `beans/${id}` });
      const steps = sessionSteps({ worktree, changes: (call) => call.name !== 'read_file', beforeRecord: async () => {} });
      const agent = await createAgentSession({
        cwd: worktree.dir,
        env,
        flags: LOOPS_OFF,
        persistSession: false,
        permissionMode: 'yolo',
        durableSteps: steps,
        mcpFromLastRun: false,
      });
      const started = performance.now();
      const outcome = await agent.submit({ text: 'go' });
      const ms = performance.now() - started;
      await agent.close();
      if (outcome.kind !== 'turn' || outcome.turn.result.stopReason !== 'completed')
        throw new Error(`durable run: ${outcome.kind === 'turn' ? outcome.turn.result.stopReason : outcome.kind}`);
      return ms;
    },
    { name: 'benchSession' },
  );
  await DBOS.launch();
  const rows = {};
  for (const [name, tool] of [
    ['A1 read_file turns', 'read_file'],
    ['A2 write_file turns', 'write_file'],
  ]) {
    currentTurns = turnsOf(tool);
    const local = [];
    const durable = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Local: the same session in the clone, as `beans -p` would run it (its JSONL session file).
      const agent = await createAgentSession({ cwd: repo.dir, env, flags: LOOPS_OFF, permissionMode: 'yolo', mcpFromLastRun: false });
      const started = performance.now();
      await agent.submit({ text: 'go' });
      local.push(performance.now() - started);
      await agent.close();
      const handle = await DBOS.startWorkflow(runDurable, { workflowID: `bench-${name.slice(0, 2)}-${round++}` })(`s${round}`);
      durable.push(await handle.getResult());
    }
    rows[name.padEnd(20)] = { local: median(local), durable: median(durable), overhead: median(durable.map((value, i) => (value - local[i]) / (2 * TURNS))) };
  }
  await DBOS.shutdown();
  await server.close();
  repo.cleanup();
  return rows;
}

/** Starts `beans runner` processes; resolves once each takes sessions. */
async function startRunners(count, env, settings, prefix) {
  const started = [];
  for (let i = 0; i < count; i++) {
    const home = path.join(env.HOME, `${prefix}${i}`);
    mkdirSync(path.join(home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'beans-agent', 'settings.json'), JSON.stringify(settings));
    const runnerEnv = { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.local/state') };
    started.push(
      new Promise((resolve, reject) => {
        const child = spawn(BEANS, ['runner', '--id', `${prefix}${i}`, '--workdir', path.join(home, 'work')], {
          cwd: home,
          env: runnerEnv,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (chunk) => {
          err += chunk;
          if (err.includes('taking background sessions')) resolve(child);
        });
        child.once('close', (code) => reject(new Error(`runner exited ${code}: ${err}`)));
      }),
    );
  }
  return Promise.all(started);
}

async function benchThroughput() {
  const results = [];
  for (const runners of [1, 2, 4]) {
    const repo = await fleetRepo();
    const server = await startScriptedOllama({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] }, { text: 'read it' }] });
    const url = await postgres.createDatabase(`bench_b${runners}`);
    const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS_DATABASE_URL: url };
    const children = await startRunners(runners, env, { runners: { sandbox: false, concurrency: 2 } }, `b${runners}-`);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const started = performance.now();
    for (let i = 0; i < SESSIONS; i++) await queueSession({ databaseUrl: url, cwd: repo.dir, prompt: `read the readme (${i})`, request: {} });
    for (;;) {
      const { rows } = await db.query(
        'SELECT count(*) FILTER (WHERE exit_code IS NOT NULL) AS done, count(*) FILTER (WHERE exit_code <> 0) AS failed FROM beans.background_sessions',
      );
      if (Number(rows[0].failed) > 0) throw new Error('a session failed');
      if (Number(rows[0].done) === SESSIONS) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    results.push({ runners, seconds, perMinute: (SESSIONS / seconds) * 60 });
    await db.end();
    for (const child of children) child.kill('SIGKILL');
    await server.close();
    repo.cleanup();
  }
  return results;
}

async function benchRecovery() {
  const results = [];
  for (let round = 0; round < RECOVERIES; round++) {
    const repo = await fleetRepo();
    const marks = path.join(path.dirname(repo.dir), 'starts.txt');
    const server = await startScriptedOllama({
      turns: (request, n) =>
        n === 0
          ? { toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] }
          : n === 1
            ? { toolCalls: [{ name: 'shell', args: { command: `echo $(date +%s%3N) >> ${marks}; sleep 60` } }] }
            : { text: 'done' },
    });
    const url = await postgres.createDatabase(`bench_c${round}`);
    const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS_DATABASE_URL: url };
    const children = await startRunners(2, env, { runners: { sandbox: false, permissionModes: ['yolo'], recoveryAfterMs: 3000 } }, `c${round}-`);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { id } = await queueSession({ databaseUrl: url, cwd: repo.dir, prompt: 'sleep a minute', request: { permissionMode: 'yolo' } });
    while (!existsSync(marks)) await new Promise((resolve) => setTimeout(resolve, 20));
    const holder = (await db.query('SELECT runner FROM beans.background_sessions WHERE id = $1', [id])).rows[0].runner;
    const index = Number(holder.split('-').at(-1));
    const killed = Date.now();
    children[index].kill('SIGKILL');
    let claimed;
    for (;;) {
      const { rows } = await db.query('SELECT runner FROM beans.background_sessions WHERE id = $1', [id]);
      if (!claimed && rows[0].runner !== holder) claimed = Date.now() - killed;
      const lines = readFileSync(marks, 'utf8').trim().split('\n');
      if (lines.length >= 2) {
        results.push({ claimed: claimed ?? Number(lines[1]) - killed, rerun: Number(lines[1]) - killed });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await db.end();
    for (const child of children) child.kill('SIGKILL');
    await server.close();
    repo.cleanup();
  }
  return results;
}
