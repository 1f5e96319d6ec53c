import { UsageError } from '../errors.js';
import type { AgentSession } from '../runtime/agent-session.js';
import { executeRun } from './engine.js';
import { resolveWorkflowAgents, sessionAgentRunner } from './host.js';
import { parseWorkflow } from './parse.js';
import type { RunStore } from './runs.js';
import type { RunState, Workflow, WorkflowProgress } from './types.js';

/** `--input key=value` pairs checked against the workflow's inputs; defaults fill the rest. */
export function workflowInputs(workflow: Workflow, given: Record<string, string>): Record<string, unknown> {
  const unknown = Object.keys(given).filter((key) => !(key in workflow.inputs));
  if (unknown.length > 0) {
    const known = Object.keys(workflow.inputs);
    throw new UsageError(`The workflow ${workflow.name} has no input ${unknown.join(', ')}. ${known.length ? `Its inputs: ${known.join(', ')}.` : 'It takes no inputs.'}`);
  }
  const inputs: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [name, input] of Object.entries(workflow.inputs)) {
    if (name in given) inputs[name] = given[name];
    else if (input.default !== undefined) inputs[name] = input.default;
    else missing.push(name);
  }
  if (missing.length > 0) throw new UsageError(`The workflow ${workflow.name} needs ${missing.map((name) => `--input ${name}=...`).join(' ')}.`);
  return inputs;
}

export interface RunWorkflowOptions {
  /** A session built with the report_progress tool among its `tools`. */
  session: AgentSession;
  store: RunStore;
  onProgress?: (progress: WorkflowProgress, state: RunState) => void;
  signal?: AbortSignal;
}

/** Starts a new run: agents are resolved (unknown ones are reported) before the run is created. */
export async function startWorkflowRun(workflow: Workflow, inputs: Record<string, unknown>, options: RunWorkflowOptions): Promise<RunState> {
  const agents = await resolveWorkflowAgents(workflow, options.session);
  const state = options.store.create(workflow, inputs);
  return execute(workflow, state, agents, options);
}

/** Continues a stopped run from its checkpoint with the workflow text it started with. */
export async function resumeWorkflowRun(state: RunState, options: RunWorkflowOptions): Promise<RunState> {
  if (state.status === 'completed') throw new UsageError(`The run ${state.id} has already completed; start a new one with \`beans workflow run\`.`);
  if (state.status === 'running') throw new UsageError(`The run ${state.id} is still running (process ${state.pid}). Stop it first, or wait for it.`);
  const workflow = await parseWorkflow(options.store.workflowSource(state.id), state.workflow.path);
  const agents = await resolveWorkflowAgents(workflow, options.session);
  return execute(workflow, state, agents, options);
}

function execute(workflow: Workflow, state: RunState, agents: Awaited<ReturnType<typeof resolveWorkflowAgents>>, options: RunWorkflowOptions): Promise<RunState> {
  return executeRun({
    workflow,
    state,
    save: (next) => options.store.save(next),
    runner: sessionAgentRunner(options.session, agents),
    onProgress: (progress) => options.onProgress?.(progress, state),
    signal: options.signal,
  });
}
