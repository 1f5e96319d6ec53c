import type { RunState, RunStatus, WorkflowProgress } from '@beans/core/workflows';
import type { OutputFormat } from '../options.js';

// What a workflow command prints, the same for both backends: the stream-json progress and result
// messages, the text progress bar, and the exit code of each final status.

export const EXIT_CODES: Record<RunStatus, number> = { completed: 0, failed: 1, timed_out: 4, interrupted: 130, running: 1 };
const SUBTYPES: Record<RunStatus, string> = {
  completed: 'success',
  failed: 'error_during_execution',
  timed_out: 'error_max_duration',
  interrupted: 'error_interrupted',
  running: 'error_during_execution',
};

export function report(state: RunState, format: OutputFormat): void {
  if (format !== 'text') {
    process.stdout.write(
      `${JSON.stringify({
        type: 'result',
        subtype: SUBTYPES[state.status],
        is_error: state.status !== 'completed',
        result: state.status === 'completed' ? (state.result ?? null) : state.error,
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
  process.stderr.write(
    `beans: run ${state.id} stopped at ${Math.floor(state.percent)}%; its finished steps are kept. Resume it with \`beans workflow resume ${state.id}\`.\n`,
  );
}

/**
 * Text: a bar on stderr (redrawn on a terminal, one line per change otherwise); stream-json: a
 * `system` message with subtype `workflow_progress` per report, on stdout.
 */
export function progressDisplay(format: OutputFormat): { show: (progress: WorkflowProgress, state: RunState) => void; end: () => void } {
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

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
