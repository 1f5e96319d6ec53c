import path from 'node:path';
import { DBOS, DBOSClient, type DLogger } from '@dbos-inc/dbos-sdk';
import { ConfigError, UsageError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { assertResumable, type AgentRunnerFor, type RunHooks, type RunListing, type WorkflowBackend } from '../backend.js';
import { executeRun, type AgentRunner } from '../engine.js';
import { parseWorkflow } from '../parse.js';
import { newRunState } from '../runs.js';
import type { CallTarget, RunState, Workflow } from '../types.js';
import { CALL_WORKFLOW, CALLS_QUEUE, InFlightCalls, queueRunner, RUN_WORKFLOW, RUNS_QUEUE, type CallArgs, type CallResult } from './calls.js';
import { describeDatabase, prepareDatabase, RunDatabase, type RunRow } from './database.js';

// The DBOS backend. A run is a DBOS workflow (`beansRun`) that executes the shared engine: its
// checkpoint is the same RunState, kept in beans.runs; each `call` is a DBOS workflow (`beansCall`)
// on the calls queue, so any attached worker executes it, within the queue's global concurrency,
// per-worker concurrency and each provider's rate limit (the queue is partitioned by provider). A process started again under the same executor id
// recovers what it had in flight; a finished call's recorded result is never recomputed.

export interface WorkflowLimits {
  /** Calls running at once across every worker. */
  maxConcurrentCalls?: number;
  /** Calls one worker runs at once. */
  workerConcurrency?: number;
  /** Calls started per period for each provider, across every worker. */
  rateLimit?: { calls: number; periodMs: number };
}

export interface DbosBackendOptions {
  databaseUrl: string;
  workspaceRoot: string;
  /** The DBOS executor id: a worker's --id; the same id after a restart recovers its work. */
  executorId: string;
  /** Queues this process takes work from: none (--no-work, runs, wait), calls, or runs and calls (a worker). */
  serve: 'none' | 'calls' | 'all';
  limits: WorkflowLimits;
  /** The provider and model of the runs this process starts (calls of any run use that run's). */
  target: CallTarget;
  /** How this process runs calls (needed when it serves them). */
  runnerFor?: AgentRunnerFor;
  /** A line for stderr (lost database, retries, DBOS warnings). */
  log: (line: string) => void;
}

const APP_VERSION = `beans-${VERSION}`;
/** A running run's heartbeat older than this means the process running it is gone. */
const STALE_MS = 10_000;

/** Checks the database, launches DBOS and returns the backend. Throws ConfigError (exit 3) for a database it cannot use. */
export async function openDbosBackend(options: DbosBackendOptions): Promise<DbosBackend> {
  await prepareDatabase(options.databaseUrl);
  const backend = new DbosBackend(options);
  await backend.launch();
  return backend;
}

export class DbosBackend implements WorkflowBackend {
  readonly kind = 'dbos';
  readonly db: RunDatabase;
  private client!: DBOSClient;
  /** Settled once launched: calls recovered during DBOS.launch wait for it before they run. */
  private readonly ready: Promise<void>;
  private markReady!: () => void;
  /** Progress callbacks and Ctrl+C of runs this process started, by run id, and their final state. */
  private readonly live = new Map<string, { hooks: RunHooks; finished: (state: RunState) => void }>();
  private readonly runners = new Map<string, Promise<{ workflow: Workflow; runner: AgentRunner }>>();
  private inFlight?: InFlightCalls;
  private takeovers?: NodeJS.Timeout;
  private orchestrate!: (runId: string, generation: number) => Promise<RunState>;

  constructor(private readonly options: DbosBackendOptions) {
    this.db = new RunDatabase(options.databaseUrl, options.log);
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  async launch(): Promise<void> {
    // pg warns about DBOS's concurrent use of one client; nothing a user can act on.
    process.noDeprecation = true;
    const log = this.options.log;
    const logger: DLogger = {
      info: () => {},
      debug: () => {},
      // A worker's log tells what DBOS did; a run's stderr keeps to the run.
      warn: (entry) => this.options.serve === 'all' && log(`dbos: ${text(entry)}`),
      error: (entry) => log(`dbos: ${text(entry)}`),
    };
    DBOS.setConfig({
      name: 'beans',
      systemDatabaseUrl: this.options.databaseUrl,
      applicationVersion: APP_VERSION,
      executorID: this.options.executorId,
      logger,
      listenQueues: this.options.serve === 'all' ? [RUNS_QUEUE, CALLS_QUEUE] : this.options.serve === 'calls' ? [CALLS_QUEUE] : [],
    });
    this.orchestrate = DBOS.registerWorkflow((runId: string, generation: number) => this.runWorkflow(runId, generation), { name: RUN_WORKFLOW });
    DBOS.registerWorkflow((args: CallArgs) => DBOS.runStep(() => this.serveCall(args), { name: 'agent' }), { name: CALL_WORKFLOW });
    if (this.options.serve !== 'none') this.inFlight = new InFlightCalls(() => this.client);
    // Launching recovers the work this executor id had in flight (a worker started again after a kill).
    await DBOS.launch();
    this.client = await DBOSClient.create({ systemDatabaseUrl: this.options.databaseUrl, applicationName: 'beans', logger });
    // One configuration per queue lives in the database. A process sets only the limits it has
    // settings for, so a run without them keeps the limits the workers were started with.
    await DBOS.registerQueue(RUNS_QUEUE, { minPollingIntervalMs: 100, onConflict: 'never_update' });
    const calls = await DBOS.registerQueue(CALLS_QUEUE, { minPollingIntervalMs: 20, onConflict: 'never_update' });
    const { maxConcurrentCalls, workerConcurrency, rateLimit } = this.options.limits;
    const global = maxConcurrentCalls ?? (await calls.getGlobalConcurrency());
    if (workerConcurrency && global && workerConcurrency > global)
      throw new ConfigError(`workflows.workerConcurrency (${workerConcurrency}) cannot exceed workflows.maxConcurrentCalls (${global}).`);
    // DBOS keeps one per-worker limit for every worker: say so when this process changes it.
    const storedPerWorker = await calls.getWorkerConcurrency();
    if (workerConcurrency !== undefined && storedPerWorker !== undefined && storedPerWorker !== workerConcurrency) {
      this.options.log(
        `every worker now runs at most ${workerConcurrency} calls at once (it was ${storedPerWorker}): the per-worker limit is one value shared by all workers of this database.`,
      );
    }
    // DBOS refuses a per-worker limit above the global one stored, and the reverse: order the updates.
    const storedGlobal = await calls.getGlobalConcurrency();
    if (workerConcurrency !== undefined && (storedGlobal === undefined || workerConcurrency <= storedGlobal))
      await calls.setWorkerConcurrency(workerConcurrency);
    if (maxConcurrentCalls !== undefined) {
      // DBOS refuses a global limit below the per-worker one already stored.
      const perWorker = await calls.getWorkerConcurrency();
      if (perWorker !== undefined && perWorker > maxConcurrentCalls && workerConcurrency === undefined) await calls.setWorkerConcurrency(maxConcurrentCalls);
      await calls.setGlobalConcurrency(maxConcurrentCalls);
    }
    if (workerConcurrency !== undefined) await calls.setWorkerConcurrency(workerConcurrency);
    if (rateLimit) {
      // Per provider: a partition limit. A queue-wide one (stored by an older Beans) would also bind all providers together.
      await calls.setPartitionRateLimit({ limitPerPeriod: rateLimit.calls, periodSec: rateLimit.periodMs / 1000 });
      await calls.setRateLimit(undefined);
    }
    this.markReady();
    // Workers continue runs whose process died (its heartbeat stopped), wherever it ran.
    if (this.options.serve === 'all') this.takeovers = setInterval(() => void this.takeOverStaleRuns().catch(() => {}), 2000);
  }

  /** `user@host:port/db`, for messages. */
  get where(): string {
    return describeDatabase(this.options.databaseUrl);
  }

  async start(workflow: Workflow, inputs: Record<string, unknown>, hooks: RunHooks): Promise<RunState> {
    const state = await this.create(workflow, inputs);
    return this.execute(state.id, 1, hooks);
  }

  async detach(workflow: Workflow, inputs: Record<string, unknown>): Promise<RunState> {
    const state = await this.create(workflow, inputs);
    await this.client.enqueue(
      { queueName: RUNS_QUEUE, workflowName: RUN_WORKFLOW, workflowID: orchestratorId(state.id, 1), appVersion: APP_VERSION },
      state.id,
      1,
    );
    return state;
  }

  async resume(id: string, hooks: RunHooks): Promise<RunState> {
    const row = await this.row(id);
    const state = await this.settle(row);
    assertResumable(state, `on worker ${row.executor ?? 'unknown'}`);
    // The stopped run's DBOS workflow must not come back (a recovery) beside the new one.
    await this.client.cancelWorkflow(row.orchestrator).catch(() => {});
    await this.db.setGeneration(row.id, row.generation + 1, orchestratorId(row.id, row.generation + 1));
    return this.execute(row.id, row.generation + 1, hooks);
  }

  async wait(id: string, hooks: RunHooks): Promise<RunState> {
    const row = await this.row(id);
    let seq = 0;
    for (;;) {
      const current = (await this.db.findRun(row.id)) as RunRow;
      // A worker takes over a run whose process died within a few seconds of it going stale: give
      // it that time before calling the run stopped.
      const state = await this.settle(current, 3 * STALE_MS);
      for (const entry of await this.db.progressSince(row.id, seq)) {
        seq = entry.seq;
        hooks.onProgress?.(entry.report, state);
      }
      if (state.status !== 'running' || hooks.signal?.aborted) return state;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  async cancel(id: string): Promise<RunState> {
    const row = await this.row(id);
    if ((await this.settle(row)).status !== 'running') return this.settle(row);
    await this.client.cancelWorkflow(row.orchestrator);
    const calls = await this.client.listWorkflows({
      workflow_id_prefix: `${row.id}/g${row.generation}/`,
      status: ['PENDING', 'ENQUEUED'],
      loadInput: false,
      loadOutput: false,
    });
    if (calls.length > 0) await this.client.cancelWorkflows(calls.map((call) => call.workflowID));
    // The process running it notices within a second and checkpoints; if none does, say so here.
    for (let i = 0; i < 30; i++) {
      const current = (await this.db.findRun(row.id)) as RunRow;
      if (current.state.status !== 'running') return current.state;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const current = (await this.db.findRun(row.id)) as RunRow;
    const state: RunState = { ...current.state, status: 'interrupted', error: `The run was cancelled; resume it with \`beans workflow resume ${row.id}\`.` };
    await this.db.saveState(state, current.executor ?? this.options.executorId, current.orchestrator);
    return state;
  }

  async list(): Promise<RunListing[]> {
    const rows = await this.db.listRuns();
    if (rows.length === 0) return [];
    const calls = await this.client.listWorkflows({
      workflow_id_prefix: rows.map((row) => `${row.id}/`),
      loadInput: false,
      loadOutput: false,
      sortDesc: false,
    });
    return Promise.all(
      rows.map(async (row) => ({
        ...(await this.settle(row)),
        calls: calls
          .filter((call) => call.workflowID.startsWith(`${row.id}/`))
          .map((call) => ({ id: call.workflowID.slice(row.id.length + 1), status: call.status, ...(call.executorId ? { worker: call.executorId } : {}) })),
      })),
    );
  }

  /** A worker's SIGTERM: takes no new work, lets the calls in flight finish (up to `timeoutMs`), disconnects. */
  async drain(timeoutMs: number): Promise<number> {
    clearInterval(this.takeovers);
    const left = this.inFlight?.size ?? 0;
    await DBOS.shutdown({ workflowCompletionTimeoutMS: timeoutMs });
    return left;
  }

  async close(): Promise<void> {
    this.inFlight?.stop();
    clearInterval(this.takeovers);
    await DBOS.shutdown().catch(() => {});
    await this.client?.destroy().catch(() => {});
    await this.db.close();
  }

  private async create(workflow: Workflow, inputs: Record<string, unknown>): Promise<RunState> {
    const state: RunState = { ...newRunState(workflow, inputs), target: this.options.target };
    // Workers on other machines find the workflow at the same place in their own checkout.
    const relative = path.relative(this.options.workspaceRoot, workflow.path);
    if (relative.startsWith('..') || path.isAbsolute(relative))
      throw new UsageError(
        `With workflows.backend "dbos" the workflow must live in the repository (${workflow.path} is outside ${this.options.workspaceRoot}): workers find it in their own checkout.`,
      );
    await this.db.createRun(state, relative, workflow.source, this.options.executorId, orchestratorId(state.id, 1));
    return state;
  }

  private async execute(runId: string, generation: number, hooks: RunHooks): Promise<RunState> {
    let finished!: (state: RunState) => void;
    const ended = new Promise<RunState>((resolve) => (finished = resolve));
    this.live.set(runId, { hooks, finished });
    try {
      const handle = await DBOS.startWorkflow(this.orchestrate, { workflowID: orchestratorId(runId, generation) })(runId, generation);
      // A run cancelled from elsewhere still checkpoints and ends here, but DBOS reports the
      // workflow as cancelled rather than its result.
      return await Promise.race([ended, handle.getResult()]).catch(async (error: unknown) => {
        if ((await this.client.getWorkflow(handle.workflowID).catch(() => undefined))?.status === 'CANCELLED') return ended;
        throw error;
      });
    } finally {
      this.live.delete(runId);
    }
  }

  private async row(idOrPrefix: string): Promise<RunRow> {
    const found = await this.db.findRun(idOrPrefix);
    if (!found) throw new UsageError(`There is no workflow run "${idOrPrefix}" in ${this.where}. Run \`beans workflow runs\` to see them.`);
    if (Array.isArray(found))
      throw new UsageError(
        `"${idOrPrefix}" matches ${found.length} runs (${found
          .slice(0, 3)
          .map((row) => row.id)
          .join(', ')}...). Give more of the id.`,
      );
    return found;
  }

  /** `running` holds while the process running it beats (or the run waits on the queue for a worker). */
  private async settle(row: RunRow, staleMs = STALE_MS): Promise<RunState> {
    const state = row.state;
    if (state.status !== 'running' || row.heartbeatAgeMs < staleMs) return state;
    const status = await this.client.getWorkflow(row.orchestrator).catch(() => undefined);
    if (status?.status === 'ENQUEUED') return state;
    return { ...state, status: 'interrupted', error: state.error ?? `The process running it (${row.executor ?? 'unknown'}) stopped (crash or kill).` };
  }

  /**
   * A run whose orchestrator stopped beating (its process was killed, its machine died) is put back
   * on the runs queue under a new orchestrator id: same generation, so the calls it had started are
   * found again, not repeated. One process wins each takeover (a conditional update); the old DBOS
   * workflow is cancelled so its executor's restart does not bring it back beside the new one.
   */
  private async takeOverStaleRuns(): Promise<void> {
    for (const run of await this.db.staleRuns(STALE_MS)) {
      const status = await this.client.getWorkflow(run.orchestrator).catch(() => undefined);
      // Still waiting for a worker, or finished in DBOS a moment ago: nothing to take over.
      if (status?.status === 'ENQUEUED' || status?.status === 'SUCCESS') continue;
      const next = `${orchestratorId(run.id, run.generation)}-t${Date.now().toString(36)}`;
      if (!(await this.db.takeOver(run.id, run.orchestrator, next, STALE_MS))) continue;
      await this.client.cancelWorkflow(run.orchestrator).catch(() => {});
      await this.client.enqueue({ queueName: RUNS_QUEUE, workflowName: RUN_WORKFLOW, workflowID: next, appVersion: APP_VERSION }, run.id, run.generation);
      this.options.log(`run ${run.id} lost its process (${run.orchestrator} stopped beating); continuing it as ${next}`);
    }
  }

  /** The body of `beansRun`: the shared engine, checkpointing to beans.runs, calls on the queue. */
  private async runWorkflow(runId: string, generation: number): Promise<RunState> {
    await this.ready;
    const row = (await this.db.findRun(runId)) as RunRow;
    const workflow = await parseWorkflow(row.source, path.join(this.options.workspaceRoot, row.workflowPath));
    const live = this.live.get(runId);
    const hooks = live?.hooks ?? {};
    const self = DBOS.workflowID!;
    const executor = this.options.executorId;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    if (hooks.signal?.aborted) stop.abort();
    // Serialized writes: checkpoints and progress land in the order the engine made them.
    let saving: Promise<unknown> = Promise.resolve();
    let saveError: { error: unknown } | undefined;
    const queue = (job: () => Promise<unknown>) => {
      saving = saving.then(job).catch((error: unknown) => {
        saveError ??= { error };
      });
    };
    const flush = async () => {
      await saving;
      if (saveError) throw saveError.error;
    };
    const beat = setInterval(() => void this.db.heartbeat(runId, executor, self).catch(() => {}), 2000);
    // `beans workflow cancel` from anywhere cancels the DBOS workflow; the engine stops at once.
    const cancelled = async () => {
      const status = await this.client.getWorkflow(self).catch(() => undefined);
      if (status?.status === 'CANCELLED') stop.abort();
    };
    const watch = setInterval(() => void cancelled(), 500);
    const runner = queueRunner({
      runId,
      generation,
      client: this.client,
      db: this.db,
      appVersion: APP_VERSION,
      target: row.state.target ?? this.options.target,
      beforeCall: flush,
      onCallError: cancelled,
    });
    const state = row.state;
    try {
      const final = await executeRun({
        workflow,
        state,
        save: (next) => {
          const snapshot = structuredClone(next);
          queue(() => this.db.saveState(snapshot, executor, self));
        },
        runner,
        onProgress: (progress) => {
          hooks.onProgress?.(progress, state);
          queue(() => this.db.appendProgress(runId, progress));
        },
        signal: stop.signal,
      });
      await flush();
      live?.finished(final);
      return final;
    } finally {
      clearInterval(beat);
      clearInterval(watch);
      runner.stop();
      hooks.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The body of a `beansCall` step on a worker: the agent runs here, with this machine's providers. */
  private async serveCall(args: CallArgs): Promise<CallResult> {
    const id = DBOS.workflowID!;
    await this.ready;
    if (!this.options.runnerFor || !this.inFlight) throw new Error(`The process ${this.options.executorId} cannot run agents.`);
    let prepared = this.runners.get(args.runId);
    if (!prepared) {
      const runnerFor = this.options.runnerFor;
      prepared = (async () => {
        const row = (await this.db.findRun(args.runId)) as RunRow;
        const workflow = await parseWorkflow(row.source, path.join(this.options.workspaceRoot, row.workflowPath));
        return { workflow, runner: await runnerFor(workflow, args.target) };
      })();
      this.runners.set(args.runId, prepared);
      prepared.catch(() => this.runners.delete(args.runId));
    }
    const { runner } = await prepared;
    const signal = this.inFlight.begin(id);
    const key = id.split('/').slice(2, -1).join('/');
    // A worker's log says what it ran; a run process serving calls keeps its output to the run's.
    const say = this.options.serve === 'all' ? this.options.log : () => {};
    say(`call ${id} (${args.agent}) started`);
    // Stored before the call's result, so the run process reads every report before the result.
    const reports: Promise<void>[] = [];
    try {
      const text = await runner.run({
        agent: args.agent,
        prompt: args.prompt,
        key,
        attempt: Number(id.slice(id.lastIndexOf('/a') + 2)),
        signal,
        onProgress: (local, message) => void reports.push(this.db.appendCallProgress(args.runId, id, local, message).catch(() => {})),
      });
      await Promise.all(reports);
      say(`call ${id} finished`);
      return { text, worker: this.options.executorId };
    } catch (error) {
      say(`call ${id} failed: ${(error as Error).message}`);
      throw error;
    } finally {
      this.inFlight.end(id);
    }
  }
}

/** The DBOS workflow id of a run's generation (a takeover appends `-t<time>`). */
function orchestratorId(runId: string, generation: number): string {
  return `${runId}@g${generation}`;
}

function text(entry: unknown): string {
  if (entry instanceof Error) return entry.message;
  return typeof entry === 'string' ? entry : JSON.stringify(entry);
}
