import { hostname } from 'node:os';
import path from 'node:path';
import { ConfigError, UsageError, type AgentSession } from '@beans/core';
import {
  findWorkflow,
  listWorkflows,
  loadWorkflowFile,
  LocalBackend,
  reportProgressTool,
  sessionRunnerFor,
  workflowInputs,
  type RunHooks,
  type RunState,
  type WorkflowBackend,
} from '@beans/core/workflows';
import { createCliSession, loadBase, loadCatalog, type Base } from '../bootstrap.js';
import type { CliOptions } from '../options.js';
import { onStopSignals, SIGNAL_EXIT_CODES, type StopSignal } from '../signals.js';
import { EXIT_CODES, progressDisplay, report } from './workflow-output.js';
import { callTarget, targetRunners } from './workflow-targets.js';

export { progressLine } from './workflow-output.js';

export interface BackendFlags {
  backend?: string;
}

export interface WorkflowRunOptions extends BackendFlags {
  input?: string[];
  detach?: boolean;
  /** Commander's `--no-work`: false when given. */
  work?: boolean;
}

/** `beans workflow run <file | name> [--input k=v ...] [--detach] [--no-work]`. */
export async function workflowRun(options: CliOptions, reference: string, local: WorkflowRunOptions): Promise<number> {
  const base = await loadBase(options);
  const listings = listWorkflows(base.workspace.root, (await loadCatalog(base)).plugins);
  // Checked in full (shape, expressions, inputs, agents) before a run exists.
  const workflow = await loadWorkflowFile(findWorkflow(reference, base.workspace.cwd, listings));
  const inputs = workflowInputs(workflow, parseInputs(local.input ?? []));
  if (local.detach) {
    return withBackend(options, base, local, { serve: 'none', session: true }, async (backend, session) => {
      // Unknown agents are reported now, not by a worker later.
      await sessionRunnerFor(session!)(workflow);
      const state = await backend.detach(workflow, inputs);
      if (options.outputFormat === 'text') {
        process.stdout.write(`${state.id}\n`);
        process.stderr.write(`beans: run ${state.id} is queued for the workers; follow it with \`beans workflow wait ${state.id}\`.\n`);
      } else process.stdout.write(`${JSON.stringify({ type: 'system', subtype: 'workflow_detached', run_id: state.id, workflow: state.workflow.name })}\n`);
      return 0;
    });
  }
  return withBackend(
    options,
    base,
    local,
    { serve: local.work === false ? 'none' : 'calls', session: true },
    async (backend, session, hooks) => {
      // Workers resolve the agents when they run them: unknown ones are reported here first (exit 2).
      if (backend.kind === 'dbos') await sessionRunnerFor(session!)(workflow);
      return backend.start(workflow, inputs, hooks);
    },
    followRun(options),
  );
}

/** `beans workflow resume <run-id>`: continues from the last checkpoint; finished steps never run again. */
export async function workflowResume(options: CliOptions, runId: string, local: BackendFlags & { work?: boolean }): Promise<number> {
  const base = await loadBase(options);
  return withBackend(
    options,
    base,
    local,
    { serve: local.work === false ? 'none' : 'calls', session: true },
    (backend, _session, hooks) => backend.resume(runId, hooks),
    followRun(options),
  );
}

/** `beans workflow wait <run-id>`: follows a run started anywhere to its end, with its progress and exit code. */
export async function workflowWait(options: CliOptions, runId: string, local: BackendFlags): Promise<number> {
  const base = await loadBase(options);
  return withBackend(
    options,
    base,
    local,
    { serve: 'none', session: false },
    (backend, _session, hooks) => backend.wait(runId, hooks),
    followRun(options, true),
  );
}

/** `beans workflow cancel <run-id>`: stops a run wherever it runs; it is `cancelled` (an explicit `resume` can still continue it). */
export async function workflowCancel(options: CliOptions, runId: string, local: BackendFlags): Promise<number> {
  const base = await loadBase(options);
  return withBackend(options, base, local, { serve: 'none', session: false }, async (backend) => {
    const state = await backend.cancel(runId);
    if (options.outputFormat !== 'text') process.stdout.write(`${JSON.stringify({ run_id: state.id, status: state.status })}\n`);
    else
      process.stderr.write(
        `beans: run ${state.id} is ${state.status}${state.status === 'interrupted' ? `; resume it with \`beans workflow resume ${state.id}\`` : ''}.\n`,
      );
    return 0;
  });
}

/** `beans workflow list [--json]`: the workspace's `.beans/workflows/` and plugins' `workflows/`. */
export async function workflowList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const listings = listWorkflows(base.workspace.root, (await loadCatalog(base)).plugins);
  if (local.json) {
    process.stdout.write(
      `${JSON.stringify({ workflows: listings.map(({ name, qualifiedName, description, path: file, source }) => ({ name, qualifiedName, description, path: file, source })) })}\n`,
    );
    return 0;
  }
  if (listings.length === 0) {
    process.stdout.write(
      "No workflows yet. Put a WORKFLOW.md at the repository root, or workflow files in .beans/workflows/ or a plugin's workflows/ folder.\n",
    );
    return 0;
  }
  for (const listing of listings) {
    process.stdout.write(`${listing.qualifiedName}  ${listing.description}  (${path.relative(base.workspace.cwd, listing.path) || listing.path})\n`);
  }
  return 0;
}

/** `beans workflow runs [--json]`: past runs, newest first, with their status (and, on DBOS, who ran each call). */
export async function workflowRuns(options: CliOptions, local: BackendFlags & { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  return withBackend(options, base, local, { serve: 'none', session: false }, async (backend) => {
    const runs = await backend.list();
    if (local.json) {
      const rows = runs.map(({ id, workflow, status, percent, startedAt, updatedAt, elapsedMs, error, calls }) => ({
        id,
        workflow: workflow.name,
        path: workflow.path,
        status,
        percent,
        startedAt,
        updatedAt,
        elapsedMs,
        ...(error ? { error } : {}),
        ...(calls ? { calls } : {}),
      }));
      process.stdout.write(`${JSON.stringify({ runs: rows })}\n`);
      return 0;
    }
    if (runs.length === 0) {
      process.stdout.write(`No workflow runs in ${backend.kind === 'local' ? 'this workspace' : 'the database'} yet.\n`);
      return 0;
    }
    for (const run of runs) {
      const workers = new Set((run.calls ?? []).map((call) => call.worker).filter(Boolean));
      process.stdout.write(
        `${run.id}  ${run.workflow.name}  ${run.status.padEnd(11)} ${String(Math.floor(run.percent)).padStart(3)}%  ${run.startedAt.slice(0, 16).replace('T', ' ')}${workers.size ? `  workers: ${[...workers].join(', ')}` : ''}\n`,
      );
    }
    if (runs.some((run) => run.status !== 'completed' && run.status !== 'running'))
      process.stdout.write('\nContinue a stopped run with `beans workflow resume <id>`.\n');
    return 0;
  });
}

/** `beans workflow worker [--id NAME] [--concurrency N]`: serves runs and calls from the database until SIGTERM. */
export async function workflowWorker(options: CliOptions, local: BackendFlags & { id?: string; concurrency?: string }): Promise<number> {
  const base = await loadBase(options);
  if (backendKind(base, local) !== 'dbos')
    throw new UsageError('`beans workflow worker` needs workflows.backend "dbos" (or --backend dbos) and workflows.databaseUrl: a local run has no workers.');
  const concurrency = local.concurrency === undefined ? undefined : Number(local.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency > 0))
    throw new UsageError(`--concurrency takes a positive whole number, not "${local.concurrency}".`);
  const id = local.id ?? `${hostname()}-${process.pid}`;
  const session = await createCliSession(options, 'one-shot', { tools: [reportProgressTool], persistSession: false });
  const { openDbosBackend } = await import('@beans/core/workflows/dbos');
  const settings = dbosOptions(base, id, 'all');
  const runners = targetRunners(options, session, settings.target);
  let backend;
  try {
    backend = await openDbosBackend({
      ...settings,
      runnerFor: runners.runnerFor,
      ...(concurrency ? { limits: { ...limitsOf(base), workerConcurrency: concurrency } } : {}),
    });
  } catch (error) {
    await session.close();
    throw error;
  }
  process.stderr.write(`beans: worker ${id} serving workflow runs and calls from ${backend.where}; SIGTERM or Ctrl+C drains and stops.\n`);
  const stopped = await new Promise<StopSignal>((resolve) => {
    const remove = onStopSignals((signal) => {
      remove();
      resolve(signal);
    });
  });
  process.stderr.write(
    `beans: worker ${id} stopping (${stopped}): finishing the calls in flight; a second signal stops at once, and a worker started again as --id ${id} recovers them.\n`,
  );
  const second = onStopSignals(() => process.exit(SIGNAL_EXIT_CODES[stopped]));
  await backend.drain(10 * 60_000);
  await backend.close();
  second();
  await runners.close();
  await session.close();
  process.stderr.write(`beans: worker ${id} stopped.\n`);
  return 0;
}

type Serve = 'none' | 'calls' | 'all';
type Job = (backend: WorkflowBackend, session: AgentSession | undefined, hooks: RunHooks) => Promise<number | RunState>;

/** Prints a run's final state as `workflow run` does and gives its exit code. */
function followRun(options: CliOptions, waiting = false) {
  return (state: RunState, stoppedBy: StopSignal | undefined): number => {
    report(state, options.outputFormat);
    // Ctrl+C while waiting leaves the run going: the watcher stops, not the run.
    if (waiting && stoppedBy && state.status === 'running') return SIGNAL_EXIT_CODES[stoppedBy];
    if (state.status === 'interrupted' && stoppedBy) return SIGNAL_EXIT_CODES[stoppedBy];
    return EXIT_CODES[state.status];
  };
}

function backendKind(base: Base, flags: BackendFlags): 'local' | 'dbos' {
  const kind = flags.backend ?? base.config.values.workflows.backend ?? 'local';
  if (kind !== 'local' && kind !== 'dbos') throw new UsageError(`--backend takes "local" or "dbos", not "${kind}".`);
  return kind;
}

function limitsOf(base: Base) {
  const settings = base.config.values.workflows;
  const rate = settings.rateLimit;
  if (rate && (rate.calls === undefined) !== (rate.periodMs === undefined))
    throw new ConfigError('workflows.rateLimit needs both "calls" and "periodMs" (e.g. {"calls": 60, "periodMs": 60000}).');
  return {
    maxConcurrentCalls: settings.maxConcurrentCalls,
    workerConcurrency: settings.workerConcurrency,
    ...(rate?.calls && rate.periodMs ? { rateLimit: { calls: rate.calls, periodMs: rate.periodMs } } : {}),
  };
}

function dbosOptions(base: Base, executorId: string, serve: Serve) {
  const databaseUrl = base.config.values.workflows.databaseUrl;
  if (!databaseUrl)
    throw new ConfigError(
      'The dbos backend needs a PostgreSQL database: set workflows.databaseUrl (or the environment variable BEANS_DATABASE_URL) to a URL such as postgresql://user:password@host:5432/beans.',
    );
  return {
    databaseUrl,
    workspaceRoot: base.workspace.root,
    executorId,
    serve,
    limits: limitsOf(base),
    target: callTarget(base),
    log: (line: string) => process.stderr.write(`beans: ${line}\n`),
  };
}

/**
 * Opens the configured backend (DBOS is imported only here, only when chosen), runs `job` with
 * Ctrl+C and the progress display wired, closes everything, and returns the exit code.
 */
async function withBackend(
  options: CliOptions,
  base: Base,
  flags: BackendFlags,
  want: { serve: Serve; session: boolean },
  job: Job,
  finish?: (state: RunState, stoppedBy: StopSignal | undefined) => number,
): Promise<number> {
  const kind = backendKind(base, flags);
  // Fails before a session is made: a missing URL or a bad database is exit 3 at once.
  const settings = kind === 'dbos' ? dbosOptions(base, `run-${hostname()}-${process.pid}`, want.serve) : undefined;
  const session = want.session ? await createCliSession(options, 'one-shot', { tools: [reportProgressTool], persistSession: false }) : undefined;
  const runners = settings && session && want.serve !== 'none' ? targetRunners(options, session, settings.target) : undefined;
  let backend: WorkflowBackend;
  try {
    if (settings) {
      const { openDbosBackend } = await import('@beans/core/workflows/dbos');
      backend = await openDbosBackend({ ...settings, ...(runners ? { runnerFor: runners.runnerFor } : {}) });
    } else backend = new LocalBackend(base.workspace.root, session ? sessionRunnerFor(session) : () => Promise.reject(new Error('no session to run agents')));
  } catch (error) {
    await session?.close();
    throw error;
  }
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  const display = progressDisplay(options.outputFormat);
  let outcome: number | RunState;
  try {
    outcome = await job(backend, session, { signal: controller.signal, onProgress: display.show });
  } finally {
    removeSignals();
    display.end();
    await backend.close();
    await runners?.close();
    await session?.close();
  }
  if (typeof outcome === 'number') return outcome;
  return finish ? finish(outcome, stoppedBy) : 0;
}

function parseInputs(pairs: string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--input takes key=value, not "${pair}".`);
    inputs[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return inputs;
}
