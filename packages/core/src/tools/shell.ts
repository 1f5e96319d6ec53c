import { once } from 'node:events';
import * as z from 'zod';
import { BackgroundTaskError, VIEW_LINES } from './background-tasks.js';
import { HeadTailBuffer } from './output-buffer.js';
import { openPidNamespace, type PidNamespace } from './pid-namespace.js';
import { killProcessGroup, killTaggedProcesses, untrackProcessGroup } from './process-tree.js';
import { startShellProcess } from './shell-process.js';
import { OutputTee, wholeOutputNote } from './saved-output.js';
import path from 'node:path';
import { defineTool, type ToolContext, type ToolResult } from './tool.js';
import { lazily } from '../lazily.js';
import { builtin } from '../node-builtins.js';

// node:timers/promises when a wait happens: as a static import it cost every start ~0.4 ms.
const sleep = (ms: number) => builtin('node:timers/promises').setTimeout(ms);

export const SHELL_DEFAULT_TIMEOUT_MS = 120_000;
export const SHELL_MAX_TIMEOUT_MS = 600_000;
/** How long output may keep flowing after the shell exits (a background job holding the pipe). */
const DRAIN_AFTER_EXIT_MS = 250;
/** Streamed lines are batched so a chatty command does not flood the UI with events. */
const UPDATE_INTERVAL_MS = 50;

const schema = lazily(() =>
  z.object({
    command: z.string().min(1),
    timeout_ms: z.number().int().min(1).max(SHELL_MAX_TIMEOUT_MS).optional(),
    run_in_background: z.boolean().optional(),
  }),
);

export const shellTool = defineTool({
  name: 'shell',
  kind: 'execute',
  description:
    'Run a bash command in the workspace root; returns exit code and output (stdout and stderr; long output keeps head and tail). ' +
    `No stdin: use non-interactive flags. timeout_ms defaults to ${SHELL_DEFAULT_TIMEOUT_MS}. ` +
    'Use read_file, grep and glob rather than cat, grep or find. ' +
    'Servers, watchers, long builds: run_in_background returns a task id at once; then shell_output, kill_shell.',
  schema,
  summarize: (input) => input.command,
  ruleSubject: (input) => input.command,
  async execute(input, ctx) {
    if (input.run_in_background) return startInBackground(input.command, ctx);
    const timeoutMs = input.timeout_ms ?? SHELL_DEFAULT_TIMEOUT_MS;
    const holds = new RunHolds();
    try {
      if (!ctx.sandbox) return await runShell(input.command, input.command, timeoutMs, ctx, holds, true);
      const sandboxed = await ctx.sandbox.wrap(input.command, ctx.signal);
      holds.add(sandboxed.release);
      const result = await runShell(sandboxed.command, input.command, timeoutMs, ctx, holds);
      // A refused write or connection looks like any failure: say where the walls are.
      return result.isError ? { ...result, content: `${result.content}\n[${ctx.sandbox.summary}]` } : result;
    } finally {
      await holds.end();
    }
  },
});

/**
 * What a foreground run holds until its command ends (the sandbox's wrap, the PID namespace). When
 * the user moves the command to the background they go with it: the task releases them when it ends.
 */
class RunHolds {
  private held: Array<() => unknown> = [];

  add(release: () => unknown): void {
    this.held.push(release);
  }

  /** Takes everything held (newest first when released); end() then has nothing left to do. */
  take(): () => Promise<void> {
    const held = this.held.splice(0).reverse();
    return async () => {
      for (const release of held) await release();
    };
  }

  end(): Promise<void> {
    return this.take()();
  }
}

async function startInBackground(command: string, ctx: ToolContext): Promise<ToolResult> {
  const tasks = ctx.backgroundTasks;
  if (!tasks) return { content: 'Background commands are not available in this session: run the command in the foreground.', isError: true };
  ctx.signal.throwIfAborted();
  const sandboxed = ctx.sandbox ? await ctx.sandbox.wrap(command, ctx.signal) : undefined;
  try {
    const task = await tasks.start(sandboxed?.command ?? command, ctx, { label: command, release: sandboxed?.release });
    return {
      content: `Started in the background as task ${task.id}. Read its output with shell_output (task_id "${task.id}"; wait_ms waits for output), stop it with kill_shell.`,
    };
  } catch (error) {
    sandboxed?.release();
    if (error instanceof BackgroundTaskError) return { content: error.message, isError: true };
    throw error;
  }
}

/** A shell command's result is always text (its output and notes), never parts. */
type ShellResult = ToolResult & { content: string };

/** `isolate`: run in a PID namespace of its own where the system allows (the sandbox has its own already). */
async function runShell(command: string, label: string, timeoutMs: number, ctx: ToolContext, holds: RunHolds, isolate = false): Promise<ShellResult> {
  ctx.signal.throwIfAborted();
  const namespace = isolate ? await openPidNamespace() : undefined;
  // Whatever the command left that the run tag could not find (it cleared its environment) ends with it.
  if (namespace) holds.add(() => namespace.end());
  return runInGroup(command, label, timeoutMs, ctx, namespace, holds);
}

async function runInGroup(
  command: string,
  label: string,
  timeoutMs: number,
  ctx: ToolContext,
  namespace: PidNamespace | undefined,
  holds: RunHolds,
): Promise<ShellResult> {
  const output = new HeadTailBuffer();
  const updates = lineBatcher(ctx.onUpdate);
  const started = await startShellProcess(command, ctx, { signal: ctx.signal, ...(namespace ? { wrap: namespace.wrap } : {}) });
  if ('error' in started)
    return { content: `Could not start the shell: ${started.error}`, isError: true, details: { kind: 'shell', exitCode: null, timedOut: false } };
  const { subprocess, pid, tag } = started;
  // Taken now so that whoever ends up waiting for the exit (this call or a background task) sees it.
  const exited = once(subprocess, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  const all = subprocess.all;
  // Everything is kept on disk too, so what the model's view cuts is never lost.
  const tee = new OutputTee(ctx.outputDir ? path.join(ctx.outputDir, `shell-${tag.slice(-12)}.log`) : undefined);
  const onData = (chunk: Buffer) => {
    updates.add(output.write(chunk));
    tee.write(chunk);
  };
  all.on('data', onData);
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
  // Ctrl+B in chat: the user moves this command to the background registry.
  let detach: () => void = () => undefined;
  const detached = new Promise<'detached'>((resolve) => (detach = () => resolve('detached')));
  const withdraw = ctx.backgroundTasks?.offerForeground(detach);

  let exitCode: number | null;
  let exitSignal: NodeJS.Signals | null;
  let heldOpen = false;
  let handedOver = false;
  try {
    const first = await Promise.race([exited, detached]);
    if (first === 'detached' && subprocess.exitCode === null && subprocess.signalCode === null && !stopping && ctx.backgroundTasks) {
      all.off('data', onData);
      updates.add(output.end());
      const earlier = { lines: output.render() ? output.render().split('\n').slice(-VIEW_LINES) : [], total: output.totalLines };
      const task = ctx.backgroundTasks.adopt({ subprocess, pid, tag, exited }, ctx, { label, release: holds.take(), earlier, earlierBytes: tee.held() });
      handedOver = true;
      return await movedResult(task.id, output, updates, tee);
    }
    [exitCode, exitSignal] = await exited;
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
    withdraw?.();
    ctx.signal.removeEventListener('abort', onAbort);
    // A command handed over is the registry's now: it untracks it when it ends.
    if (!handedOver) untrackProcessGroup(pid);
  }
  // Nothing a command started may outlive it: background jobs, nohup, setsid included.
  const leftovers = await killTaggedProcesses(tag);
  updates.add(output.end());
  updates.flush();
  ctx.signal.throwIfAborted();
  const saved = await tee.finish(output.linesCut > 0);
  let result = formatResult(output, exitCode, exitSignal, timedOut, timeoutMs, heldOpen);
  if (saved)
    result = {
      ...result,
      content: `${result.content}\n${wholeOutputNote(saved, `${output.linesCut.toLocaleString('en-US')} lines were cut from the middle above.`)}`,
    };
  if (leftovers.length === 0) return result;
  const note = `[Stopped ${leftovers.length} process${leftovers.length === 1 ? '' : 'es'} the command left running in the background (pid ${leftovers.join(', ')}): commands cannot leave processes behind. Start servers and watchers with run_in_background: true.]`;
  return { ...result, content: `${result.content}\n${note}` };
}

/** The result of a call the user moved to the background: the output so far and the task's id. */
async function movedResult(id: string, output: HeadTailBuffer, updates: ReturnType<typeof lineBatcher>, tee: OutputTee): Promise<ShellResult> {
  updates.flush();
  const saved = await tee.finish(output.linesCut > 0);
  const text = output.render();
  const lines = [
    `The user moved this command to the background as task ${id}; it is still running. Read its later output with shell_output (task_id "${id}"; wait_ms waits for output), stop it with kill_shell.`,
    text.trim() ? `Output so far:\n${text}` : '(no output so far)',
  ];
  if (saved) lines.push(wholeOutputNote(saved, `${output.linesCut.toLocaleString('en-US')} lines of the output so far were cut from the middle above.`));
  return { content: lines.join('\n'), details: { kind: 'shell', exitCode: null, timedOut: false, backgroundTask: id } };
}

function formatResult(
  output: HeadTailBuffer,
  exitCode: number | null,
  exitSignal: NodeJS.Signals | null,
  timedOut: boolean,
  timeoutMs: number,
  heldOpen: boolean,
): ShellResult {
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
