import { UsageError } from '../errors.js';
import { executeRun, type AgentRunner } from './engine.js';
import { parseWorkflow } from './parse.js';
import { alive, RunStore } from './runs.js';
import type { CallTarget, RunState, Workflow, WorkflowProgress } from './types.js';

// One engine, two places to run it. The definition, expressions, progress and step logic live in
// engine.ts and are the same for both; a backend only decides where the checkpoints are kept and
// who executes each `call`: this process and `.beans/runs` (local), or PostgreSQL and any worker
// attached to it (dbos/).

/** What the front end sees of a run while it goes: every progress report, and Ctrl+C. */
export interface RunHooks {
  onProgress?: (progress: WorkflowProgress, state: RunState) => void;
  signal?: AbortSignal;
}

/** One agent call of a run, as the DBOS backend records it (the local backend runs them in-process). */
export interface CallRecord {
  id: string;
  status: string;
  /** The worker (DBOS executor id) that ran or runs it. */
  worker?: string;
}

export interface RunListing extends RunState {
  calls?: CallRecord[];
}

/**
 * Builds the runner for a workflow's `call` steps: agents are resolved (unknown ones reported) here.
 * A DBOS worker passes the run's target, so a call uses the provider and model the run was started
 * with, through the worker's own keys and endpoints.
 */
export type AgentRunnerFor = (workflow: Workflow, target?: CallTarget) => Promise<AgentRunner>;

export interface WorkflowBackend {
  readonly kind: 'local' | 'dbos';
  /** Creates a run and runs it to its end; resolves with the final state (never throws for a failing step). */
  start(workflow: Workflow, inputs: Record<string, unknown>, hooks: RunHooks): Promise<RunState>;
  /** Creates a run for the workers to execute and returns at once. */
  detach(workflow: Workflow, inputs: Record<string, unknown>): Promise<RunState>;
  /** Continues a stopped run from its last checkpoint; finished units never run again. */
  resume(id: string, hooks: RunHooks): Promise<RunState>;
  /** Follows a run started elsewhere until it stops; resolves with its final state. */
  wait(id: string, hooks: RunHooks): Promise<RunState>;
  /** Stops a run (resumable later); resolves with its state. */
  cancel(id: string): Promise<RunState>;
  list(): Promise<RunListing[]>;
  close(): Promise<void>;
}

/** The embedded default: runs in this process, checkpoints in `.beans/runs/<id>/state.json`. */
export class LocalBackend implements WorkflowBackend {
  readonly kind = 'local';
  readonly store: RunStore;

  constructor(
    workspaceRoot: string,
    private readonly runnerFor: AgentRunnerFor,
  ) {
    this.store = new RunStore(workspaceRoot);
  }

  async start(workflow: Workflow, inputs: Record<string, unknown>, hooks: RunHooks): Promise<RunState> {
    const runner = await this.runnerFor(workflow);
    return this.execute(workflow, this.store.create(workflow, inputs), runner, hooks);
  }

  async detach(): Promise<RunState> {
    throw new UsageError('--detach needs workflows.backend "dbos": a local run lives in the process that started it.');
  }

  async resume(id: string, hooks: RunHooks): Promise<RunState> {
    const state = this.store.load(id);
    assertResumable(state, `process ${state.pid}`);
    const workflow = await parseWorkflow(this.store.workflowSource(state.id), state.workflow.path);
    return this.execute(workflow, state, await this.runnerFor(workflow), hooks);
  }

  async wait(id: string, hooks: RunHooks): Promise<RunState> {
    let state = this.store.load(id);
    let percent = -1;
    while (state.status === 'running') {
      if (hooks.signal?.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = this.store.load(state.id);
      if (state.percent !== percent && state.status === 'running') {
        percent = state.percent;
        hooks.onProgress?.({ percent, step: 'running', range: [0, 100], local: percent, elapsedMs: state.elapsedMs }, state);
      }
    }
    return state;
  }

  async cancel(id: string): Promise<RunState> {
    const state = this.store.load(id);
    // The process running it stops at once and checkpoints, as on Ctrl+C.
    if (state.status === 'running' && state.pid !== undefined && alive(state.pid)) {
      process.kill(state.pid, 'SIGINT');
      for (let i = 0; i < 100 && this.store.load(id).status === 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.store.load(id);
  }

  async list(): Promise<RunListing[]> {
    return this.store.list();
  }

  async close(): Promise<void> {}

  private execute(workflow: Workflow, state: RunState, runner: AgentRunner, hooks: RunHooks): Promise<RunState> {
    return executeRun({
      workflow,
      state,
      save: (next) => this.store.save(next),
      runner,
      onProgress: (progress) => hooks.onProgress?.(progress, state),
      signal: hooks.signal,
    });
  }
}

/** A finished run cannot be resumed, nor one another process is running. */
export function assertResumable(state: RunState, runningWhere: string): void {
  if (state.status === 'completed') throw new UsageError(`The run ${state.id} has already completed; start a new one with \`beans workflow run\`.`);
  if (state.status === 'running')
    throw new UsageError(`The run ${state.id} is still running (${runningWhere}). Stop it first (\`beans workflow cancel ${state.id}\`), or wait for it.`);
}
