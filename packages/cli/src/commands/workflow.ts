import path from 'node:path';
import { UsageError, type AgentSession } from '@beans/core';
import {
  findWorkflow,
  listWorkflows,
  loadWorkflowFile,
  reportProgressTool,
  resumeWorkflowRun,
  RunStore,
  startWorkflowRun,
  workflowInputs,
  type RunState,
  type RunStatus,
  type WorkflowProgress,
} from '@beans/core/workflows';
import { createCliSession, loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions, OutputFormat } from '../options.js';
import { onStopSignals, SIGNAL_EXIT_CODES, type StopSignal } from '../signals.js';

export interface WorkflowRunOptions {
  input?: string[];
}

/** `beans workflow run <file | name> [--input k=v ...]`. */
export async function workflowRun(options: CliOptions, reference: string, local: WorkflowRunOptions): Promise<number> {
  const base = await loadBase(options);
  const listings = listWorkflows(base.workspace.root, (await loadCatalog(base)).plugins);
  // Checked in full (shape, expressions, inputs, agents) before a run exists.
  const workflow = await loadWorkflowFile(findWorkflow(reference, base.workspace.cwd, listings));
  const inputs = workflowInputs(workflow, parseInputs(local.input ?? []));
  return withSession(options, (session, signal, onProgress) => startWorkflowRun(workflow, inputs, { session, store: new RunStore(base.workspace.root), signal, onProgress }));
}

/** `beans workflow resume <run-id>`: continues from the last checkpoint; finished steps never run again. */
export async function workflowResume(options: CliOptions, runId: string): Promise<number> {
  const base = await loadBase(options);
  const store = new RunStore(base.workspace.root);
  const state = store.load(runId);
  return withSession(options, (session, signal, onProgress) => resumeWorkflowRun(state, { session, store, signal, onProgress }));
}

/** `beans workflow list [--json]`: the workspace's `.beans/workflows/` and plugins' `workflows/`. */
export async function workflowList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const listings = listWorkflows(base.workspace.root, (await loadCatalog(base)).plugins);
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ workflows: listings.map(({ name, qualifiedName, description, path: file, source }) => ({ name, qualifiedName, description, path: file, source })) })}\n`);
    return 0;
  }
  if (listings.length === 0) {
    process.stdout.write("No workflows yet. Put WORKFLOW.md files in .beans/workflows/ or a plugin's workflows/ folder.\n");
    return 0;
  }
  for (const listing of listings) {
    process.stdout.write(`${listing.qualifiedName}  ${listing.description}  (${path.relative(base.workspace.cwd, listing.path) || listing.path})\n`);
  }
  return 0;
}

/** `beans workflow runs [--json]`: past runs, newest first, with their status. */
export async function workflowRuns(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const runs = new RunStore(base.workspace.root).list();
  if (local.json) {
    const rows = runs.map(({ id, workflow, status, percent, startedAt, updatedAt, elapsedMs, error }) => ({ id, workflow: workflow.name, path: workflow.path, status, percent, startedAt, updatedAt, elapsedMs, ...(error ? { error } : {}) }));
    process.stdout.write(`${JSON.stringify({ runs: rows })}\n`);
    return 0;
  }
  if (runs.length === 0) {
    process.stdout.write('No workflow runs in this workspace yet.\n');
    return 0;
  }
  for (const run of runs) {
    process.stdout.write(`${run.id}  ${run.workflow.name}  ${run.status.padEnd(11)} ${String(Math.floor(run.percent)).padStart(3)}%  ${run.startedAt.slice(0, 16).replace('T', ' ')}\n`);
  }
  if (runs.some((run) => run.status !== 'completed')) process.stdout.write('\nContinue a stopped run with `beans workflow resume <id>`.\n');
  return 0;
}

type Execute = (session: AgentSession, signal: AbortSignal, onProgress: (progress: WorkflowProgress, state: RunState) => void) => Promise<RunState>;

async function withSession(options: CliOptions, execute: Execute): Promise<number> {
  const format = options.outputFormat;
  const session = await createCliSession(options, 'one-shot', { tools: [reportProgressTool], persistSession: false });
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  const display = progressDisplay(format);
  let state: RunState;
  try {
    state = await execute(session, controller.signal, display.show);
  } finally {
    removeSignals();
    display.end();
    session.close();
  }
  report(state, format);
  if (state.status === 'interrupted' && stoppedBy) return SIGNAL_EXIT_CODES[stoppedBy];
  return EXIT_CODES[state.status];
}

const EXIT_CODES: Record<RunStatus, number> = { completed: 0, failed: 1, timed_out: 4, interrupted: 130, running: 1 };
const SUBTYPES: Record<RunStatus, string> = { completed: 'success', failed: 'error_during_execution', timed_out: 'error_max_duration', interrupted: 'error_interrupted', running: 'error_during_execution' };

function report(state: RunState, format: OutputFormat): void {
  if (format !== 'text') {
    process.stdout.write(
      `${JSON.stringify({
        type: 'result',
        subtype: SUBTYPES[state.status],
        is_error: state.status !== 'completed',
        result: state.status === 'completed' ? state.result ?? null : state.error,
        run_id: state.id,
        workflow: state.workflow.name,
        status: state.status,
        percent: state.percent,
        duration_ms: Math.round(state.elapsedMs),
      })}\n`,
    );
    return;
  }
  if (state.status === 'completed') {
    const result = state.result;
    if (result !== undefined) process.stdout.write(`${typeof result === 'string' ? result : JSON.stringify(result, null, 2)}\n`);
    process.stderr.write(`beans: run ${state.id} completed in ${seconds(state.elapsedMs)}.\n`);
    return;
  }
  process.stderr.write(`beans: ${state.error ?? `the run ${state.status}`}\n`);
  process.stderr.write(`beans: run ${state.id} stopped at ${Math.floor(state.percent)}%; its finished steps are kept. Resume it with \`beans workflow resume ${state.id}\`.\n`);
}

/**
 * Text: a bar on stderr (redrawn on a terminal, one line per change otherwise); stream-json: a
 * `system` message with subtype `workflow_progress` per report, on stdout.
 */
function progressDisplay(format: OutputFormat): { show: (progress: WorkflowProgress, state: RunState) => void; end: () => void } {
  if (format === 'json') return { show: () => {}, end: () => {} };
  if (format === 'stream-json') {
    return {
      show: (progress, state) =>
        process.stdout.write(
          `${JSON.stringify({
            type: 'system',
            subtype: 'workflow_progress',
            run_id: state.id,
            workflow: state.workflow.name,
            step: progress.step,
            percent: progress.percent,
            step_range: progress.range.map(round),
            step_percent: round(progress.local),
            ...(progress.message ? { message: progress.message } : {}),
            elapsed_ms: Math.round(progress.elapsedMs),
          })}\n`,
        ),
      end: () => {},
    };
  }
  const tty = process.stderr.isTTY === true;
  let last = '';
  return {
    show: (progress) => {
      const line = progressLine(progress, tty ? (process.stderr.columns ?? 80) : Infinity);
      if (line === last) return;
      last = line;
      process.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    },
    end: () => {
      if (tty && last) process.stderr.write('\n');
    },
  };
}

/** `[#########-----------]  45% writer (parallel 1/2) 20-60% · 12.3s · message`. */
export function progressLine(progress: WorkflowProgress, width: number): string {
  const filled = Math.round(progress.percent / 5);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(20 - filled)}]`;
  const share = `${round(progress.range[0])}-${round(progress.range[1])}%`;
  const line = `${bar} ${String(Math.floor(progress.percent)).padStart(3)}% ${progress.step} ${share} · ${seconds(progress.elapsedMs)}${progress.message ? ` · ${progress.message}` : ''}`;
  return line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;
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

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
