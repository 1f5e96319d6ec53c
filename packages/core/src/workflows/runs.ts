import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { RunState, Workflow } from './types.js';
import { builtin } from '../node-builtins.js';
import { terminalSafeJson } from '../terminal-text.js';

const STATE_FILE = 'state.json';
const WORKFLOW_COPY = 'workflow.md';

/** A new run's first checkpoint; its id sorts by start time (`20260101-120000-a1b2c3`). */
export function newRunState(workflow: Workflow, inputs: Record<string, unknown>, now = new Date()): RunState {
  const id = `${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${builtin('node:crypto').randomBytes(3).toString('hex')}`;
  return {
    id,
    workflow: { name: workflow.name, path: workflow.path },
    status: 'running',
    inputs,
    artifacts: {},
    done: [],
    loops: {},
    branches: {},
    percent: 0,
    startedAt: now.toISOString(),
    updatedAt: now.toISOString(),
    elapsedMs: 0,
    pid: process.pid,
  };
}

/** Runs of one workspace under `.beans/runs/<run-id>/`: state.json and a copy of the workflow. */
export class RunStore {
  readonly dir: string;

  constructor(workspaceRoot: string) {
    this.dir = path.join(workspaceRoot, '.beans', 'runs');
  }

  /** A new run of `workflow`, checkpointed at once so even a crash before the first step leaves it listed. */
  create(workflow: Workflow, inputs: Record<string, unknown>, now = new Date()): RunState {
    const state = newRunState(workflow, inputs, now);
    mkdirSync(path.join(this.dir, state.id), { recursive: true });
    writeFileSync(path.join(this.dir, state.id, WORKFLOW_COPY), workflow.source);
    this.save(state);
    return state;
  }

  /** Replaces state.json atomically: a kill at any moment leaves the previous or the new checkpoint. */
  save(state: RunState): void {
    const file = path.join(this.dir, state.id, STATE_FILE);
    const temporary = `${file}.${process.pid}.tmp`;
    // Step outputs are model text: C1 controls escaped, so `cat` on a run file cannot drive the terminal.
    writeFileSync(temporary, `${terminalSafeJson(JSON.stringify(state, null, 2))}\n`);
    renameSync(temporary, file);
  }

  /** The workflow text the run started with (a resume runs the same definition, whatever the file says now). */
  workflowSource(id: string): string {
    return readFileSync(path.join(this.dir, id, WORKFLOW_COPY), 'utf8');
  }

  /** A run by id or unique prefix; a run left `running` by a dead process reads as interrupted. */
  load(idOrPrefix: string): RunState {
    const ids = this.ids();
    const id = ids.includes(idOrPrefix)
      ? idOrPrefix
      : onlyMatch(
          ids.filter((candidate) => candidate.startsWith(idOrPrefix)),
          idOrPrefix,
        );
    return settle(JSON.parse(readFileSync(path.join(this.dir, id, STATE_FILE), 'utf8')) as RunState);
  }

  /** Every run of the workspace, newest first. */
  list(): RunState[] {
    const runs: RunState[] = [];
    for (const id of this.ids()) {
      try {
        runs.push(settle(JSON.parse(readFileSync(path.join(this.dir, id, STATE_FILE), 'utf8')) as RunState));
      } catch {
        // A folder without a readable state is not a run (or was never checkpointed).
      }
    }
    return runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  private ids(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  }
}

function onlyMatch(matches: string[], wanted: string): string {
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new UsageError(`There is no workflow run "${wanted}" in this workspace. Run \`beans workflow runs\` to see them.`);
  throw new UsageError(`"${wanted}" matches ${matches.length} runs (${matches.slice(0, 3).join(', ')}...). Give more of the id.`);
}

/** `running` is only true while its process lives; after a crash or kill -9 the run is resumable. */
function settle(state: RunState): RunState {
  if (state.status === 'running' && !(state.pid !== undefined && alive(state.pid))) {
    return { ...state, status: 'interrupted', error: state.error ?? 'The process running it stopped (crash or kill).' };
  }
  return state;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
