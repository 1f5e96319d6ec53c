// Workflow engine overhead per step, against a zero-latency scripted Ollama server.
// Run: pnpm run build && node bench/workflow.mjs   (STEPS=200 to change the loop length)
//
// A: N subagent calls made directly through the session (what a `call` step costs at the least);
// B: the same N calls as a workflow loop (render input, run, parse, store, checkpoint to disk, progress);
// C: N transform steps (the engine alone: JSONata and a checkpoint per step, no model);
// D: `beans workflow run` end to end with N calls (process start-up included);
// E: one checkpoint of a finished N-call run.
// With PostgreSQL installed (Debian's postgresql; a throwaway cluster on 127.0.0.1), the DBOS backend:
// F: the same N calls as B with workflows.backend "dbos", this process serving the calls queue
//    (enqueue, dispatch, the call's step recorded, the result read back, checkpoint rows);
// G: throughput of CALLS (200) short calls (one parallel step) on 1, 2 and 4 `beans workflow worker`
//    processes (--concurrency 10 each), the run started with --no-work; calls per second from the
//    run's own duration.
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createAgentSession } from '../packages/core/dist/index.js';
import {
  executeRun,
  parseWorkflow,
  reportProgressTool,
  resolveWorkflowAgents,
  RunStore,
  sessionAgentRunner,
  sessionRunnerFor,
} from '../packages/core/dist/workflows/index.js';
import { spawn } from 'node:child_process';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';
import { postgresUnavailable, startPostgres } from '../test/support/postgres.ts';
import { BEANS, fmt, median, runBeans, tempRepo } from './lib.mjs';

const STEPS = Number(process.env.STEPS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CALLS = Number(process.env.CALLS ?? 200);
const server = await startScriptedOllama({ turns: [{ text: '{"ok": true}', usage: { input: 10, output: 3 } }] });
const repo = tempRepo();
const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
mkdirSync(path.join(repo.dir, '.beans/workflows'), { recursive: true });
writeFileSync(path.join(repo.dir, '.beans/workflows/worker.md'), '---\nname: worker\ndescription: answers ok\n---\nAnswer {"ok": true}.\n');
const loopWorkflow = `---\nname: bench-calls\nsteps:\n  - loop: { over: "\${[1..${STEPS}]}", as: n }\n    steps:\n      - { call: ./worker.md, input: { n: "\${n}" }, store: "results[]" }\n---\n`;
const transformWorkflow = `---\nname: bench-transforms\nsteps:\n${Array.from({ length: STEPS }, (_, i) => `  - { transform: "$count(results) + ${i}", store: "t${i}" }`).join('\n')}\n---\n`;
const loopFile = path.join(repo.dir, '.beans/workflows/bench-calls.md');
writeFileSync(loopFile, loopWorkflow);

const session = await createAgentSession({ cwd: repo.dir, env, tools: [reportProgressTool], persistSession: false });
const calls = await parseWorkflow(loopWorkflow, loopFile);
const transforms = await parseWorkflow(transformWorkflow, path.join(repo.dir, '.beans/workflows/bench-transforms.md'));
const agents = await resolveWorkflowAgents(calls, session);
const worker = agents.get('./worker.md');
const store = new RunStore(repo.dir);
const timed = async (job) => {
  const started = performance.now();
  await job();
  return performance.now() - started;
};
const run = (workflow) => {
  const state = store.create(workflow, {});
  state.artifacts.results = [];
  return executeRun({ workflow, state, save: (next) => store.save(next), runner: sessionAgentRunner(session, agents) }).then((final) => {
    if (final.status !== 'completed') throw new Error(final.error);
  });
};

const direct = [];
const workflow = [];
const engineOnly = [];
const endToEnd = [];
for (let round = 0; round < ROUNDS; round++) {
  direct.push(
    await timed(async () => {
      for (let i = 0; i < STEPS; i++) await session.runSubagent(worker, `n = ${i}`, new AbortController().signal);
    }),
  );
  workflow.push(await timed(() => run(calls)));
  engineOnly.push(await timed(() => run(transforms)));
  const cli = await runBeans(['workflow', 'run', 'bench-calls', '-o', 'json'], { cwd: repo.dir, env });
  if (cli.code !== 0) throw new Error(cli.stderr);
  endToEnd.push(cli.ms);
}
// E: one checkpoint (state.json written beside, then renamed over the old one) of the finished B run.
const last = store.list().find((state) => state.workflow.name === 'bench-calls');
const saveMs = await timed(async () => {
  for (let i = 0; i < STEPS; i++) store.save(last);
});
// F and G need PostgreSQL.
const pgMissing = postgresUnavailable();
let dbos;
if (!pgMissing) dbos = await benchDbos();
session.close();
await server.close();
repo.cleanup();

const per = (values) => median(values) / STEPS;
console.log(`workflow engine, ${STEPS} steps, median of ${ROUNDS} (zero-latency scripted Ollama):`);
console.log(`  A direct subagent call          ${fmt(per(direct))} per call`);
console.log(`  B call step in a workflow loop  ${fmt(per(workflow))} per step`);
// A and B alternate within each round, so the difference is taken per round (the machine is shared).
const overhead = median(workflow.map((value, round) => (value - direct[round]) / STEPS));
console.log(`  engine overhead per call step   ${fmt(overhead)} (median of B - A per round)`);
console.log(`  E one checkpoint write           ${fmt(saveMs / STEPS)} (${Math.round(JSON.stringify(last).length / 1024)} kB state, write + rename)`);
console.log(`  C transform step (no model)     ${fmt(per(engineOnly))} per step`);
console.log(`  D beans workflow run, end to end ${fmt(median(endToEnd))} for ${STEPS} calls (${fmt(median(endToEnd) / STEPS)} per step, start-up included)`);
if (!dbos) {
  console.log(`  F, G (DBOS backend) skipped: ${pgMissing}`);
} else {
  console.log(`DBOS backend over PostgreSQL on 127.0.0.1 (median of ${dbos.rounds}):`);
  console.log(`  F call step on DBOS             ${fmt(dbos.perStep)} per step (${fmt(dbos.overhead)} over a direct call; local engine: ${fmt(overhead)})`);
  for (const { workers, seconds, perSecond } of dbos.throughput)
    console.log(`  G ${CALLS} short calls on ${workers} worker${workers > 1 ? 's' : ' '}     ${perSecond.toFixed(1)} calls/s (${seconds.toFixed(2)} s)`);
}

async function benchDbos() {
  const pg = await startPostgres();
  try {
    const rounds = Math.max(1, Math.min(ROUNDS, 3));
    const url = await pg.createDatabase('bench_f');
    const { openDbosBackend } = await import('../packages/core/dist/workflows/dbos/index.js');
    const backend = await openDbosBackend({
      databaseUrl: url,
      workspaceRoot: repo.dir,
      executorId: 'bench',
      serve: 'calls',
      limits: {},
      target: { provider: 'ollama' },
      runnerFor: sessionRunnerFor(session),
      log: (line) => console.error(line),
    });
    const dbosRuns = [];
    const directRuns = [];
    try {
      for (let round = 0; round < rounds; round++) {
        directRuns.push(
          await timed(async () => {
            for (let i = 0; i < STEPS; i++) await session.runSubagent(worker, `n = ${i}`, new AbortController().signal);
          }),
        );
        dbosRuns.push(
          await timed(async () => {
            const final = await backend.start(calls, {}, {});
            if (final.status !== 'completed') throw new Error(final.error);
          }),
        );
      }
    } finally {
      await backend.close();
    }
    // G: worker processes, each its own beans; the run process only enqueues and follows.
    const fan = `---\nname: bench-fan\nsteps:\n  - parallel:\n${Array.from({ length: CALLS }, (_, i) => `      - { call: ./worker.md, input: { n: ${i} }, store: "r${i}" }`).join('\n')}\n---\n`;
    writeFileSync(path.join(repo.dir, '.beans/workflows/bench-fan.md'), fan);
    const throughput = [];
    for (const workers of [1, 2, 4]) {
      const db = await pg.createDatabase(`bench_g${workers}`);
      const env2 = { ...env, BEANS_DATABASE_URL: db };
      const children = [];
      for (let i = 0; i < workers; i++) children.push(await startWorker(env2, `w${i}`));
      const result = await runBeans(['workflow', 'run', 'bench-fan', '--backend', 'dbos', '--no-work', '-o', 'json'], { cwd: repo.dir, env: env2 });
      for (const child of children) child.kill('SIGKILL');
      if (process.env.BENCH_DEBUG)
        for (const child of children)
          console.error(
            child
              .log()
              .split('\n')
              .filter((line) => !line.includes(' call '))
              .join('\n'),
          );
      if (result.code !== 0) throw new Error(result.stderr);
      const seconds = JSON.parse(result.stdout).duration_ms / 1000;
      throughput.push({ workers, seconds, perSecond: CALLS / seconds });
    }
    return {
      rounds,
      perStep: median(dbosRuns) / STEPS,
      overhead: median(dbosRuns.map((value, round) => (value - directRuns[round]) / STEPS)),
      throughput,
    };
  } finally {
    pg.stop();
  }
}

function startWorker(workerEnv, id) {
  return new Promise((resolve, reject) => {
    // 10 calls at a time each: without a per-worker limit the first worker to poll takes all 200.
    const child = spawn(BEANS, ['workflow', 'worker', '--backend', 'dbos', '--id', id, '--concurrency', '10'], {
      cwd: repo.dir,
      env: workerEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
      if (err.includes('serving')) resolve(child);
    });
    child.log = () => err;
    child.once('close', (code) => reject(new Error(`worker ${id} exited ${code}: ${err}`)));
  });
}
