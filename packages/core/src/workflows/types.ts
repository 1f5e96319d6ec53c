/** A WORKFLOW.md file, parsed and checked; every expression in it has compiled. */
export interface Workflow {
  name: string;
  description?: string;
  /** Absolute path of the file (agents given as paths resolve next to it). */
  path: string;
  /** The whole file as read, kept in each run so a resume runs the same definition. */
  source: string;
  inputs: Record<string, WorkflowInput>;
  /** The artifact returned at the end; else the last one stored. */
  output?: string;
  retry: WorkflowRetry;
  maxDurationMs?: number;
  steps: Step[];
}

export interface WorkflowInput {
  description?: string;
  default?: unknown;
  /** True when the input has no default: a run without it is refused before it starts. */
  required: boolean;
}

export interface WorkflowRetry {
  /** Tries in all, the first included (1: no retry). */
  maxAttempts: number;
  backoffMs: number;
  backoffMultiplier: number;
}

interface StepBase {
  /** Relative share of the parent's progress range (default 1). */
  weight: number;
  /** 1-based line in the workflow file where the step starts. */
  line: number;
  /** What progress lines call the step (`name:`, else derived from its kind). */
  label: string;
}

/** Where a step's result goes: `name`, or `name[]` to append to a list. */
export interface StoreTarget {
  name: string;
  append: boolean;
}

export interface CallStep extends StepBase {
  kind: 'call';
  /** A plugin agent name, `plugin:name`, or a path to an agent file next to the workflow. */
  agent: string;
  /** A value whose strings may hold `${...}` templates. */
  input?: unknown;
  store?: StoreTarget;
  /** Overrides the workflow's retry policy for this step. */
  retry?: WorkflowRetry;
}

export interface ParallelStep extends StepBase {
  kind: 'parallel';
  branches: Step[];
}

export interface LoopStep extends StepBase {
  kind: 'loop';
  /** An expression yielding the list to iterate (`${...}` or bare), or the list itself. */
  over: string | unknown[];
  as: string;
  steps: Step[];
}

export interface ConditionalStep extends StepBase {
  kind: 'conditional';
  condition: string;
  then: Step[];
  else: Step[];
}

export interface TransformStep extends StepBase {
  kind: 'transform';
  expression: string;
  store?: StoreTarget;
}

export type Step = CallStep | ParallelStep | LoopStep | ConditionalStep | TransformStep;

/** `cancelled`: someone stopped it (`beans workflow cancel`); it can still be resumed, like an interrupted run. */
export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted' | 'timed_out' | 'cancelled';

/** What `.beans/runs/<run-id>/state.json` holds; written after every finished unit of work. */
export interface RunState {
  id: string;
  workflow: { name: string; path: string };
  status: RunStatus;
  inputs: Record<string, unknown>;
  artifacts: Record<string, unknown>;
  /** Keys of finished units (steps, loop iterations, parallel branches): never run again. */
  done: string[];
  /** The list each started loop iterates, fixed when it started so a resume sees the same items. */
  loops: Record<string, unknown[]>;
  /** The branch each evaluated conditional took. */
  branches: Record<string, 'then' | 'else'>;
  /** The name of the artifact stored last (the result when the workflow names no output). */
  lastStored?: string;
  /** Overall progress, 0-100, as last reported. */
  percent: number;
  startedAt: string;
  updatedAt: string;
  /** Time spent running, summed over every attempt (what maxDurationMs bounds). */
  elapsedMs: number;
  /** elapsedMs when the current maxDurationMs budget began (a resume after timing out starts a new one). */
  budgetStartMs?: number;
  /** The process running it, while it runs (a dead pid means it crashed). */
  pid?: number;
  error?: string;
  /** The result, once completed. */
  result?: unknown;
  /** The provider (and model, when one was chosen) of the process that started the run: its calls use them wherever they run. */
  target?: CallTarget;
}

/** Which provider, and model when one was chosen, runs a workflow's calls. */
export interface CallTarget {
  provider: string;
  model?: string;
}

/** One progress report: overall percentage, the step that moved it and that step's share. */
export interface WorkflowProgress {
  percent: number;
  /** The unit that moved, e.g. `writer (parallel 1/2)` or `checker (loop 2/3)`. */
  step: string;
  /** The step's range of the whole run, in percentage points. */
  range: [number, number];
  /** The step's own percentage, 0-100. */
  local: number;
  message?: string;
  elapsedMs: number;
}
