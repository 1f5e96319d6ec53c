import { StorageError } from '../errors.js';
import { evaluate, expressionOf, renderValue } from './expressions.js';
import { divideRange, ProgressTracker, type Range } from './progress.js';
import type { CallStep, WorkflowRetry, RunState, Step, StoreTarget, Workflow, WorkflowProgress } from './types.js';

/** Runs one agent for a `call` step; rejects when the agent did not finish its job. */
export interface AgentRunner {
  run(call: AgentCall): Promise<string>;
}

export interface AgentCall {
  agent: string;
  prompt: string;
  /** The unit's key in the run (`2/i1/0`) and the try (1 first): with the run, one call's identity. */
  key: string;
  attempt: number;
  signal: AbortSignal;
  /** The worker's own progress, 0-100 (report_progress, or the turn fallback). */
  onProgress: (local: number, message?: string) => void;
}

export interface ExecuteOptions {
  workflow: Workflow;
  state: RunState;
  /** Writes a checkpoint; called after every finished unit of work. */
  save(state: RunState): void;
  runner: AgentRunner;
  onProgress?: (progress: WorkflowProgress) => void;
  /** Ctrl+C: the run stops and stays resumable. */
  signal?: AbortSignal;
  /** Waits between retries (tests pass a fake clock). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

class StopRun extends Error {
  constructor(
    readonly status: 'interrupted' | 'timed_out',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs (or resumes) a workflow to its end. Every finished unit is checkpointed; units already in
 * `state.done` are skipped, so a resume never repeats work. Resolves with the final state, whose
 * status says how it ended; never throws for a failing step.
 */
export async function executeRun(options: ExecuteOptions): Promise<RunState> {
  const { workflow, state } = options;
  const startedAt = Date.now();
  const elapsedBefore = state.elapsedMs;
  const elapsed = () => elapsedBefore + (Date.now() - startedAt);
  const done = new Set(state.done);
  const progress = new ProgressTracker(state.percent, elapsed, (report) => options.onProgress?.(report));
  const stop = new AbortController();
  const onAbort = () => stop.abort(new StopRun('interrupted', 'The run was interrupted; resume it with `beans workflow resume ' + state.id + '`.'));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  // maxDurationMs counts the time spent running over every attempt; reaching it stops the run at its
  // last checkpoint. Resuming a run that reached it grants one more maxDurationMs.
  if (state.status === 'timed_out') state.budgetStartMs = elapsedBefore;
  const spent = elapsedBefore - (state.budgetStartMs ?? 0);
  const deadline =
    workflow.maxDurationMs !== undefined
      ? setTimeout(
          () =>
            stop.abort(
              new StopRun(
                'timed_out',
                `The run reached its maxDurationMs of ${workflow.maxDurationMs} ms; resume it with \`beans workflow resume ${state.id}\` to give it as long again.`,
              ),
            ),
          Math.max(0, workflow.maxDurationMs - spent),
        )
      : undefined;
  const sleep = options.sleep ?? abortableSleep;

  let pending: NodeJS.Immediate | undefined;
  const checkpoint = () => {
    if (pending) clearImmediate(pending);
    pending = undefined;
    state.done = [...done];
    state.elapsedMs = elapsed();
    state.percent = progress.percent;
    state.updatedAt = new Date().toISOString();
    try {
      options.save(state);
    } catch (error) {
      throw new StorageError(
        `Cannot write the checkpoint of run ${state.id}: ${(error as Error).message}. Free some disk space or fix the folder's permissions, then resume the run.`,
      );
    }
  };
  // Units that finish in the same tick (a call, its loop iteration, the loop) share one write;
  // `flush` runs before any new call starts, so work that was reported finished is on disk
  // before the next request leaves.
  const checkpointSoon = () => {
    pending ??= setImmediate(() => {
      try {
        checkpoint();
      } catch (error) {
        // A run whose progress cannot be saved stops rather than doing work it would lose.
        stop.abort(error);
      }
    });
  };
  const flush = () => {
    if (pending) checkpoint();
  };
  const finishUnit = (key: string, range: Range, label: string) => {
    done.add(key);
    progress.complete(key, range, label);
    checkpointSoon();
  };
  const scopeOf = (locals: Record<string, unknown>) => ({ ...state.artifacts, ...locals, input: state.inputs });
  const store = (target: StoreTarget | undefined, value: unknown) => {
    if (!target) return;
    if (target.append) {
      const existing = state.artifacts[target.name];
      state.artifacts[target.name] = [...(Array.isArray(existing) ? (existing as unknown[]) : existing === undefined ? [] : [existing]), value];
    } else state.artifacts[target.name] = value;
    state.lastStored = target.name;
  };
  const ensureRunning = () => {
    if (stop.signal.aborted) throw stop.signal.reason;
  };

  const runSequence = async (steps: Step[], prefix: string, range: Range, locals: Record<string, unknown>, context: string, signal: AbortSignal) => {
    const ranges = divideRange(
      range,
      steps.map((step) => step.weight),
    );
    for (const [index, step] of steps.entries()) await runStep(step, `${prefix}${index}`, ranges[index], locals, context, signal);
  };
  // A runtime error in an expression (a type mismatch, say) fails its step with the step's line.
  const evaluateFor = async (step: Step, expression: string, locals: Record<string, unknown>) => {
    try {
      return await evaluate(expressionOf(expression).expression, scopeOf(locals));
    } catch (error) {
      throw new Error(`Step "${step.label}" (line ${step.line}): the expression ${JSON.stringify(expression)} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };

  const runStep = async (step: Step, key: string, range: Range, locals: Record<string, unknown>, context: string, signal: AbortSignal): Promise<void> => {
    const label = `${step.label}${context}`;
    if (done.has(key)) {
      progress.complete(key, range, label);
      return;
    }
    ensureRunning();
    if (signal.aborted) throw signal.reason;
    switch (step.kind) {
      case 'call': {
        const value = await runCall(step, key, range, label, scopeOf(locals), signal);
        store(step.store, value);
        break;
      }
      case 'transform':
        store(step.store, await evaluateFor(step, step.expression, locals));
        break;
      case 'parallel': {
        // One failing branch stops its siblings; the ones that finished stay checkpointed.
        const siblings = new AbortController();
        const stopSiblings = () => siblings.abort(signal.reason);
        signal.addEventListener('abort', stopSiblings, { once: true });
        const ranges = divideRange(
          range,
          step.branches.map((branch) => branch.weight),
        );
        const outcomes = await Promise.allSettled(
          step.branches.map(async (branch, index) => {
            const branchKey = `${key}/b${index}`;
            try {
              await runStep(branch, branchKey, ranges[index], locals, ` (parallel ${index + 1}/${step.branches.length})${context}`, siblings.signal);
            } catch (error) {
              siblings.abort(error);
              throw error;
            }
          }),
        );
        signal.removeEventListener('abort', stopSiblings);
        const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        if (failed) throw stop.signal.aborted ? stop.signal.reason : failed.reason;
        break;
      }
      case 'loop': {
        let items = state.loops[key];
        if (!items) {
          const over = typeof step.over === 'string' ? await evaluateFor(step, step.over, locals) : step.over;
          if (!Array.isArray(over))
            throw yieldedError(
              workflow.path,
              step,
              'over',
              step.over,
              over,
              'a list to loop over (a lone match can be kept a list with [], e.g. "${checks.name[]}")',
            );
          items = over;
          // Saved with the next checkpoint; until then the same artifacts give the same items.
          state.loops[key] = items;
        }
        for (const [index, item] of items.entries()) {
          const iterationKey = `${key}/i${index}`;
          const iterationRange = divideRange(
            range,
            items.map(() => 1),
          )[index];
          if (done.has(iterationKey)) {
            progress.complete(iterationKey, iterationRange, label);
            continue;
          }
          await runSequence(
            step.steps,
            `${iterationKey}/`,
            iterationRange,
            { ...locals, [step.as]: item },
            ` (loop ${index + 1}/${items.length})${context}`,
            signal,
          );
          finishUnit(iterationKey, iterationRange, `${label} ${index + 1}/${items.length}`);
        }
        break;
      }
      case 'conditional': {
        let branch = state.branches[key];
        if (!branch) {
          const holds = step.condition === 'true' || (step.condition !== 'false' && (await evaluateFor(step, step.condition, locals)));
          if (typeof holds !== 'boolean') throw yieldedError(workflow.path, step, 'conditional', step.condition, holds, 'true or false');
          branch = holds ? 'then' : 'else';
          state.branches[key] = branch;
        }
        await runSequence(step[branch], `${key}/${branch}/`, range, locals, ` (${branch})${context}`, signal);
        break;
      }
    }
    finishUnit(key, range, label);
  };

  const runCall = async (step: CallStep, key: string, range: Range, label: string, scope: Record<string, unknown>, signal: AbortSignal): Promise<unknown> => {
    let input: unknown;
    try {
      input = step.input === undefined ? undefined : await renderValue(step.input, scope);
    } catch (error) {
      throw new Error(`Step "${label}" (line ${step.line}): its input could not be rendered: ${(error as Error).message}`, { cause: error });
    }
    const prompt = callPrompt(workflow.name, input);
    const retry: WorkflowRetry = step.retry ?? workflow.retry;
    flush();
    progress.update(key, range, 0, label);
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await options.runner.run({
          agent: step.agent,
          prompt,
          key,
          attempt,
          signal,
          onProgress: (local, message) => progress.update(key, range, local, label, message),
        });
        return parseAnswer(answer);
      } catch (error) {
        if (signal.aborted) throw stop.signal.aborted ? stop.signal.reason : signal.reason;
        const reason = error instanceof Error ? error.message : String(error);
        if (attempt >= retry.maxAttempts)
          throw new Error(`Step "${label}" (line ${step.line}) failed${retry.maxAttempts > 1 ? ` after ${attempt} attempts` : ''}: ${reason}`, {
            cause: error,
          });
        const wait = retry.backoffMs * retry.backoffMultiplier ** (attempt - 1);
        progress.update(key, range, 0, label, `attempt ${attempt} failed (${reason}); retrying in ${wait} ms`);
        try {
          await sleep(wait, signal);
        } catch {
          throw stop.signal.aborted ? stop.signal.reason : signal.reason;
        }
      }
    }
  };

  state.status = 'running';
  state.pid = process.pid;
  delete state.error;
  checkpoint();
  try {
    await runSequence(workflow.steps, '', [0, 100], {}, '', stop.signal);
    const resultName = workflow.output ?? state.lastStored;
    state.result = resultName === undefined ? undefined : state.artifacts[resultName];
    state.status = 'completed';
    progress.finish('done');
  } catch (error) {
    if (error instanceof StopRun) {
      state.status = error.status;
      state.error = error.message;
    } else {
      state.status = 'failed';
      state.error = error instanceof Error ? error.message : String(error);
    }
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onAbort);
    delete state.pid;
    checkpoint();
  }
  return state;
}

/** The prompt a worker gets: its input, and how its answer is used. */
export function callPrompt(workflowName: string, input: unknown): string {
  const body =
    input === undefined
      ? 'There is no input: do the job your instructions describe.'
      : typeof input === 'string'
        ? input
        : `Input (JSON):\n${JSON.stringify(input, null, 2)}`;
  return [
    `You are one step of the workflow "${workflowName}".`,
    '',
    body,
    '',
    'Report your progress with the report_progress tool (percent 0-100) as you work.',
    "Your final answer is stored as this step's result: answer with the result only, as JSON when it is structured data.",
  ].join('\n');
}

/** A worker's answer: JSON when it is JSON (also inside one ```json fence), else the text. */
export function parseAnswer(answer: string): unknown {
  const text = answer.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(text);
  const candidate = fenced ? fenced[1] : text;
  if (/^[[{"]/.test(candidate) || /^(-?\d|true$|false$|null$)/.test(candidate)) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // Not JSON after all: keep the text.
    }
  }
  return text;
}

/**
 * A conditional or a loop's list whose expression yielded the wrong kind of value stops the run: a
 * silent else branch or an empty loop hides the mistake (a misspelt field yields undefined).
 */
function yieldedError(file: string, step: Step, field: string, expression: unknown, value: unknown, expected: string): Error {
  const shown =
    value === undefined
      ? 'undefined (nothing: a field or stored value of that name does not exist)'
      : `${Array.isArray(value) ? 'a list' : typeof value} ${JSON.stringify(value)?.slice(0, 120)}`;
  return new Error(`${file}:${step.line}: step "${step.label}": the ${field} expression ${JSON.stringify(expression)} yielded ${shown}, not ${expected}.`);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
