import {
  SdkMessageMapper,
  type BackgroundTaskInfo,
  UsageError,
  exitCodeForFailure,
  modelLimits,
  sdkWarningsOnce,
  startupFailureResult,
  submitSummary,
  parseInterval,
  MIN_LOOP_MS,
  type SubmitOutcome,
} from '@beans/core';
import { createCliSession } from './bootstrap.js';
import type { CliOptions } from './options.js';
import { exitCodeForRun, limitMessage } from './output/result.js';
import { stripTerminalControls } from './output/terminal-safe.js';
import { SIGNAL_EXIT_CODES, onStopSignals, type StopSignal } from './signals.js';

/** The answer as text: on a terminal, without what would drive it (as the chat shows it); piped, as it is. */
const forTerminal = (text: string) => (process.stdout.isTTY ? stripTerminalControls(text) : text);

/** `beans -p`: runs the agent to completion and prints the answer in the chosen format. */
export async function runOneShot(options: CliOptions, prompt: string, started: number): Promise<number> {
  sdkWarningsOnce();
  // A bad --loop is a usage error before anything starts.
  if (options.maxRuns !== undefined && options.loop === undefined) throw new UsageError('--max-runs counts the runs of --loop: give --loop <interval> too.');
  const loop = options.loop === undefined ? undefined : loopOf(options.loop, options.maxRuns);
  const agent = await createCliSession(options, 'one-shot');
  const { session } = agent;
  const format = options.outputFormat;
  const writeLine = (line: string) => process.stdout.write(`${line}\n`);
  if (agent.modelNote && format === 'text') process.stderr.write(`beans: ${agent.modelNote}\n`);

  const mapper = new SdkMessageMapper({
    sessionId: session.id,
    includePartialMessages: options.includePartialMessages,
    modelLimits: (model) => modelLimits(agent.providerId, model),
    toolNames: options.toolNames,
    workspaceRoot: agent.workspace.root,
  });
  if (format === 'stream-json') {
    writeLine(JSON.stringify(mapper.init(agent.initInfo())));
    session.subscribe((event) => {
      for (const message of mapper.event(event)) writeLine(JSON.stringify(message));
    });
  } else if (format === 'json') {
    session.subscribe((event) => void mapper.event(event)); // usage per model for the result
  }

  // A wait for a retry can last seconds; say so on stderr, where it never mixes with the answer.
  session.subscribe((event) => {
    if (event.type === 'notice') process.stderr.write(`beans: ${event.text}\n`);
    if (event.type !== 'retry') return;
    const cause = event.failure.status ? `HTTP ${event.failure.status}` : 'a dropped connection';
    process.stderr.write(`beans: ${session.provider} answered with ${cause}; retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt}).\n`);
  });

  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  let outcome: SubmitOutcome | undefined;
  let code = 0;
  if (loop) {
    // --loop: the prompt runs now and again every interval, each run reported as a run of its own.
    agent.schedules.connect((input) => agent.submit({ ...input, signal: controller.signal }));
    agent.schedules.start();
    agent.schedules.onFire((fire) => {
      if (fire.phase === 'end' && !stoppedBy) code = reportOrExit(fire.outcome);
    });
    const task = agent.schedules.addLoop({ prompt, intervalMs: loop.intervalMs, ...(loop.maxRuns !== undefined ? { maxRuns: loop.maxRuns } : {}) });
    await Promise.race([agent.schedules.whenDone(task.id), new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true }))]);
    agent.schedules.stop();
    removeSignals();
  } else outcome = await agent.submit({ text: prompt, signal: controller.signal }).finally(removeSignals);
  await agent.end();
  sayWhatHappensToTasks(agent.backgroundTasks.list(), options.keepTasks === true);
  // Resolves at once unless telemetry is on; then once it is exported (a dead collector: ~1.5 s at most).
  await agent.close();
  if (!outcome) return stoppedBy ? SIGNAL_EXIT_CODES[stoppedBy] : code;
  return report(outcome);

  /** A run of --loop: its answer printed as a one-shot's; a refused one says why and the loop goes on. */
  function reportOrExit(run: SubmitOutcome): number {
    try {
      return report(run);
    } catch (error) {
      process.stderr.write(`beans: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
  }

  function report(outcome: SubmitOutcome): number {
    // An unknown command, an unreadable @file: nothing was sent (exit 2).
    if (outcome.kind === 'refused') throw new UsageError(outcome.reason);
    // A session command (`/cost`, `/context`, `/compact`...) answers without the model.
    if (outcome.kind === 'command') {
      if (format === 'text') writeLine(forTerminal(outcome.text));
      else writeLine(JSON.stringify(mapper.result(submitSummary(outcome, Date.now() - started))));
      return 0;
    }
    if (outcome.kind !== 'turn') return stoppedBy ? SIGNAL_EXIT_CODES[stoppedBy] : 130;
    const turn = outcome.turn;
    const { result } = turn;
    for (const notice of turn.notices) process.stderr.write(`beans: ${notice}\n`);
    // A guardrail or a UserPromptSubmit hook refused the prompt: nothing ran (exit 2).
    if (turn.refused?.stage === 'prompt') {
      if (format !== 'text') writeLine(JSON.stringify(startupFailureResult(`The prompt was blocked: ${turn.refused.reason}`, session.id)));
      process.stderr.write(`beans: The prompt was blocked: ${turn.refused.reason}\n`);
      return 2;
    }

    const values = agent.config.values;
    const limit = limitMessage(result, { maxTurns: values.maxTurns, maxBudgetUsd: values.maxBudgetUsd });
    // --json-schema: an answer that never validated is this run's error (error_max_structured_output_retries).
    const unstructured = turn.structured && 'error' in turn.structured ? turn.structured.error : undefined;
    const error = result.failure?.message ?? limit ?? (result.stopReason === 'aborted' ? 'Interrupted.' : undefined) ?? unstructured;
    // An output guardrail may redact the answer, or replace it with its rule's message (exit 1).
    const answered = { ...result, finalText: turn.answer };
    if (turn.refused?.stage === 'answer') {
      const message = `The answer was withheld: ${turn.refused.reason}`;
      if (format === 'text') writeLine(forTerminal(turn.answer));
      else writeLine(JSON.stringify(mapper.result({ result: { ...answered, stopReason: 'error' }, durationMs: Date.now() - started, error: message })));
      process.stderr.write(`beans: ${message}\n`);
      return 1;
    }
    const code = stoppedBy
      ? SIGNAL_EXIT_CODES[stoppedBy]
      : unstructured && result.stopReason === 'completed'
        ? 1
        : exitCodeForRun(result, result.failure ? exitCodeForFailure(result.failure) : 1);

    if (format === 'text') {
      if (result.stopReason === 'completed') writeLine(forTerminal(answered.finalText));
      if (error && code !== 0)
        process.stderr.write(`beans: ${error}
`);
    } else {
      writeLine(JSON.stringify(mapper.result({ result: answered, durationMs: Date.now() - started, error, structured: turn.structured })));
      if (error && code !== 0) process.stderr.write(`beans: ${error}\n`);
    }
    return code;
  }
}

/** `--loop 30s [--max-runs 3]`: at least 10 s apart; runs until the last run, Ctrl+C or the 7-day expiry. */
function loopOf(interval: string, maxRuns: string | undefined): { intervalMs: number; maxRuns?: number } {
  const intervalMs = parseInterval(interval);
  if (intervalMs === undefined) throw new UsageError(`--loop ${interval} is not an interval: a number with s, m, h or d (e.g. 30s, 5m).`);
  if (intervalMs < MIN_LOOP_MS) throw new UsageError(`--loop runs at most every 10 seconds (${interval} is shorter).`);
  if (maxRuns === undefined) return { intervalMs };
  const runs = Number(maxRuns);
  if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`--max-runs ${maxRuns} is not a whole number of at least 1.`);
  return { intervalMs, maxRuns: runs };
}

/** Background commands still running when a one-shot run ends: stopped (said on stderr), or left running with --keep-tasks. */
function sayWhatHappensToTasks(tasks: readonly BackgroundTaskInfo[], keep: boolean): void {
  const running = tasks.filter((task) => task.state === 'running');
  // A background subagent lives inside Beans: --keep-tasks keeps commands only.
  const kept = keep ? running.filter((task) => task.kind !== 'agent') : [];
  const stopped = running.filter((task) => !kept.includes(task));
  const list = (some: readonly BackgroundTaskInfo[]) => some.map((task) => `${task.id} (${task.command})`).join(', ');
  if (kept.length > 0) process.stderr.write(`beans: left running (--keep-tasks): ${list(kept)}\n`);
  if (stopped.length > 0) process.stderr.write(`beans: stopping background tasks at exit: ${list(stopped)}\n`);
}
