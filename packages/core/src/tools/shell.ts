import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { BackgroundTaskError } from './background-tasks.js';
import { HeadTailBuffer } from './output-buffer.js';
import { openPidNamespace, type PidNamespace } from './pid-namespace.js';
import { killProcessGroup, killTaggedProcesses, untrackProcessGroup } from './process-tree.js';
import { startShellProcess } from './shell-process.js';
import { OutputTee, wholeOutputNote } from './saved-output.js';
import path from 'node:path';
import { defineTool, type ToolContext, type ToolResult } from './tool.js';
import { lazily } from '../lazily.js';

export const SHELL_DEFAULT_TIMEOUT_MS = 120_000;
export const SHELL_MAX_TIMEOUT_MS = 600_000;
/** How long output may keep flowing after the shell exits (a background job holding the pipe). */
const DRAIN_AFTER_EXIT_MS = 250;
/** Streamed lines are batched so a chatty command does not flood the UI with events. */
const UPDATE_INTERVAL_MS = 50;

const schema = lazily(() =>
  z.object({
    command: z.string().min(1).describe('The bash command line'),
    timeout_ms: z.number().int().min(1).max(SHELL_MAX_TIMEOUT_MS).optional().describe(`Timeout in ms (default ${SHELL_DEFAULT_TIMEOUT_MS})`),
    run_in_background: z.boolean().optional().describe('Return a task id at once; the command runs on'),
  }),
);

export const shellTool = defineTool({
  name: 'shell',
  kind: 'execute',
  description:
    'Run a bash command in the workspace root and get its exit code and output (stdout and stderr together; long output keeps head and tail). ' +
    `No stdin: use non-interactive flags. Default timeout ${SHELL_DEFAULT_TIMEOUT_MS / 1000}s, up to ${SHELL_MAX_TIMEOUT_MS / 1000}s via timeout_ms. ` +
    'Prefer read_file, grep and glob to cat, grep or find. ' +
    'Servers, watchers, long builds: run_in_background: true, then shell_output and kill_shell.',
  schema,
  summarize: (input) => input.command,
  ruleSubject: (input) => input.command,
  async execute(input, ctx) {
    if (input.run_in_background) return startInBackground(input.command, ctx);
    const timeoutMs = input.timeout_ms ?? SHELL_DEFAULT_TIMEOUT_MS;
    if (!ctx.sandbox) return runShell(input.command, timeoutMs, ctx, true);
    const sandboxed = await ctx.sandbox.wrap(input.command, ctx.signal);
    try {
      const result = await runShell(sandboxed.command, timeoutMs, ctx);
      // A refused write or connection looks like any failure: say where the walls are.
      return result.isError ? { ...result, content: `${result.content}\n[${ctx.sandbox.summary}]` } : result;
    } finally {
      sandboxed.release();
    }
  },
});

async function startInBackground(command: string, ctx: ToolContext): Promise<ToolResult> {
  const tasks = ctx.backgroundTasks;
  if (!tasks) return { content: 'Background commands are not available in this session: run the command in the foreground.', isError: true };
  ctx.signal.throwIfAborted();
  const sandboxed = ctx.sandbox ? await ctx.sandbox.wrap(command, ctx.signal) : undefined;
  try {
    const task = await tasks.start(sandboxed?.command ?? command, ctx, { label: command, release: sandboxed?.release });
    return { content: `Started in the background as task ${task.id}. Read its output with shell_output (task_id "${task.id}"; wait_ms waits for output), stop it with kill_shell.` };
  } catch (error) {
    sandboxed?.release();
    if (error instanceof BackgroundTaskError) return { content: error.message, isError: true };
    throw error;
  }
}

/** `isolate`: run in a PID namespace of its own where the system allows (the sandbox has its own already). */
async function runShell(command: string, timeoutMs: number, ctx: ToolContext, isolate = false): Promise<ToolResult> {
  ctx.signal.throwIfAborted();
  const namespace = isolate ? await openPidNamespace() : undefined;
  try {
    return await runInGroup(command, timeoutMs, ctx, namespace);
  } finally {
    // Whatever the command left that the run tag could not find (it cleared its environment) ends here.
    await namespace?.end();
  }
}

async function runInGroup(command: string, timeoutMs: number, ctx: ToolContext, namespace: PidNamespace | undefined): Promise<ToolResult> {
  const output = new HeadTailBuffer();
  const updates = lineBatcher(ctx.onUpdate);
  const started = await startShellProcess(command, ctx, { signal: ctx.signal, ...(namespace ? { wrap: namespace.wrap } : {}) });
  if ('error' in started) return { content: `Could not start the shell: ${started.error}`, isError: true, details: { kind: 'shell', exitCode: null, timedOut: false } };
  const { subprocess, pid, tag } = started;

  const all = subprocess.all;
  // Everything is kept on disk too, so what the model's view cuts is never lost.
  const tee = new OutputTee(ctx.outputDir ? path.join(ctx.outputDir, `shell-${tag.slice(-12)}.log`) : undefined);
  all.on('data', (chunk: Buffer) => {
    updates.add(output.write(chunk));
    tee.write(chunk);
  });
  const outputEnded = once(all, 'close').catch(() => undefined);

  let timedOut = false;
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= killProcessGroup(pid));
  const timer = setTimeout(() => {
    timedOut = true;
    void stop();
  }, timeoutMs);
  const onAbort = () => void stop();
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  let exitCode: number | null = null;
  let exitSignal: NodeJS.Signals | null = null;
  let heldOpen = false;
  try {
    [exitCode, exitSignal] = (await once(subprocess, 'exit')) as [number | null, NodeJS.Signals | null];
    const drained = await Promise.race([outputEnded.then(() => true), sleep(DRAIN_AFTER_EXIT_MS).then(() => false)]);
    if (!drained) {
      heldOpen = true;
      all.destroy();
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }
    if (stopping) await stopping;
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    untrackProcessGroup(pid);
  }
  // Nothing a command started may outlive it: background jobs, nohup, setsid included.
  const leftovers = await killTaggedProcesses(tag);
  updates.add(output.end());
  updates.flush();
  ctx.signal.throwIfAborted();
  const saved = await tee.finish(output.linesCut > 0);
  let result = formatResult(output, exitCode, exitSignal, timedOut, timeoutMs, heldOpen);
  if (saved) result = { ...result, content: `${result.content}\n${wholeOutputNote(saved, `${output.linesCut.toLocaleString('en-US')} lines were cut from the middle above.`)}` };
  if (leftovers.length === 0) return result;
  const note = `[Stopped ${leftovers.length} process${leftovers.length === 1 ? '' : 'es'} the command left running in the background (pid ${leftovers.join(', ')}): commands cannot leave processes behind. Start servers and watchers with run_in_background: true.]`;
  return { ...result, content: `${result.content}\n${note}` };
}

function formatResult(
  output: HeadTailBuffer,
  exitCode: number | null,
  exitSignal: NodeJS.Signals | null,
  timedOut: boolean,
  timeoutMs: number,
  heldOpen: boolean,
): ToolResult {
  const text = output.render();
  const body = text.trim() ? text : '(no output)';
  const details = { kind: 'shell' as const, exitCode: timedOut ? null : exitCode, timedOut };
  const notes: string[] = [];
  if (heldOpen) notes.push('[A background process kept the output open; its later output is not shown. Redirect background jobs to a file: cmd > log 2>&1 &]');
  if (timedOut) {
    notes.unshift(
      `Timed out after ${timeoutMs / 1000}s; the command and every process it started were stopped. ` +
        `If it needs longer, pass a larger timeout_ms (up to ${SHELL_MAX_TIMEOUT_MS}); for servers or watchers, start them in the background with output redirected.`,
    );
    return { content: [notes[0], body, ...notes.slice(1)].join('\n'), isError: true, details };
  }
  if (exitCode === 0) return { content: [body, ...notes].join('\n'), details };
  const status = exitCode === null ? `Killed by ${exitSignal ?? 'a signal'}.` : `Exit code ${exitCode}.`;
  return { content: [status, body, ...notes].join('\n'), isError: true, details };
}

/** Collects completed lines and hands them to onUpdate at most every UPDATE_INTERVAL_MS. */
function lineBatcher(onUpdate: ((text: string) => void) | undefined) {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length > 0 && onUpdate) onUpdate(pending.join('\n'));
    pending = [];
  };
  return {
    add(lines: string[]) {
      if (!onUpdate || lines.length === 0) return;
      pending.push(...lines);
      timer ??= setTimeout(flush, UPDATE_INTERVAL_MS);
    },
    flush,
  };
}
