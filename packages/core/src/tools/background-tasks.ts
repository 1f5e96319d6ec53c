import { once } from 'node:events';
import path from 'node:path';
import { HeadTailBuffer, type HeadTailLimits } from './output-buffer.js';
import { killProcessGroup, killTaggedProcesses, newKeptRunTag, untrackProcessGroup } from './process-tree.js';
import { SpillFile } from './spill-file.js';
import { startShellProcess, type ShellPlace, type ShellProcess } from './shell-process.js';

export const DEFAULT_MAX_BACKGROUND_TASKS = 8;
/** What one read of a task's new output shows at most: the head and the tail of it, the middle cut. */
const UNREAD_LIMITS: HeadTailLimits = { headChars: 6_000, tailChars: 14_000, lineChars: 2_000 };
/** Lines kept for `/tasks` and the model's context list. */
const RECENT_LINES = 20;
/** Lines kept for a person viewing a task's output (/tasks): each at most lineChars, so ~400 KB at worst. */
export const VIEW_LINES = 200;

export type BackgroundTaskState = 'running' | 'exited' | 'killed';

/** What a front end and the model see of one task. */
export interface BackgroundTaskInfo {
  id: string;
  command: string;
  state: BackgroundTaskState;
  /** Set once it exited by itself; null when a signal ended it. */
  exitCode: number | null;
  startedAt: number;
  endedAt: number | undefined;
  /** The last lines it printed (cleaned), newest last. */
  recentLines: string[];
  /** Where its whole output is saved once it outgrew memory; undefined until then. */
  outputFile: string | undefined;
  /** `agent` for a background subagent (startWork); absent for a command. */
  kind?: 'agent';
}

/** New output of a task since its last read, bounded like a foreground command's. */
export interface BackgroundTaskRead {
  info: BackgroundTaskInfo;
  /** The new lines (only those matching the filter when one was given), head and tail when long. */
  text: string;
  /** Lines of the new output cut from the middle (still in the saved file). */
  linesCut: number;
  /** Lines the filter left out. */
  linesFiltered: number;
}

interface Task {
  info: BackgroundTaskInfo;
  pid: number;
  tag: string;
  unread: HeadTailBuffer;
  spill: SpillFile;
  ended: Promise<void>;
  stopping?: Promise<void>;
  /** Waiters for new output or the end (shell_output's wait). */
  wakers: Set<() => void>;
  /** Told to the model once, in the context before its next turn. */
  endNoted: boolean;
  release?: () => void;
  /** For work that is not a process (pid 0): how kill stops it. */
  stop?: () => Promise<void>;
  /** The last VIEW_LINES lines, for a person viewing the task (/tasks); the model reads `unread`. */
  viewLines: string[];
  /** Every line it printed, counted. */
  lineCount: number;
}

/** Keeps completed lines in the task's recent and view lines (both bounded). */
function remember(task: Task, completed: readonly string[]): void {
  if (completed.length === 0) return;
  task.lineCount += completed.length;
  task.viewLines.push(...completed.slice(-VIEW_LINES));
  if (task.viewLines.length > VIEW_LINES) task.viewLines.splice(0, task.viewLines.length - VIEW_LINES);
  task.info.recentLines = task.viewLines.slice(-RECENT_LINES);
}

export interface BackgroundTasksOptions {
  maxTasks?: number;
  /** Tasks outlive Beans (`--keep-tasks`): not stopped when Beans exits, released by release(). */
  keepAtExit?: boolean;
  now?: () => number;
}

/** Why a task could not start: the limit, or the shell failing to start. */
export class BackgroundTaskError extends Error {}

/**
 * The background commands of one session (`shell` with `run_in_background`). Each runs in its own
 * process group with a run tag, like a foreground command, so stopping it reaches everything it
 * started; its output goes into bounded memory (the new lines since the last read, head and tail,
 * and the last lines) and, once it outgrows memory, into a file the model can read. Memory stays
 * bounded whatever a task prints: the file is written with back-pressure, so a flooding task is
 * slowed to the disk's pace instead of filling memory.
 */
export class BackgroundTasks {
  private readonly tasks = new Map<string, Task>();
  private readonly listeners = new Set<() => void>();
  /** Foreground shell calls that may be moved here (Ctrl+B): each one's detach request. */
  private readonly foreground = new Set<() => void>();
  private nextId = 1;
  readonly maxTasks: number;
  private readonly keepAtExit: boolean;
  private readonly now: () => number;

  constructor(options: BackgroundTasksOptions = {}) {
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_BACKGROUND_TASKS;
    this.keepAtExit = options.keepAtExit === true;
    this.now = options.now ?? Date.now;
  }

  /** Starts `command` (already wrapped by the sandbox, if any); `release` runs when it ends. */
  async start(
    command: string,
    ctx: ShellPlace & { outputDir?: string },
    options: { release?: () => unknown; label?: string } = {},
  ): Promise<BackgroundTaskInfo> {
    const running = this.runningCount();
    if (running >= this.maxTasks) {
      throw new BackgroundTaskError(
        `${running} background tasks are already running (the limit is ${this.maxTasks}, setting shell.maxBackgroundTasks): stop one with kill_shell first, or run this command in the foreground.`,
      );
    }
    const started = await startShellProcess(command, ctx, this.keepAtExit ? { tag: newKeptRunTag(), track: false } : {});
    if ('error' in started) throw new BackgroundTaskError(`Could not start the shell: ${started.error}`);
    return this.adopt({ ...started, exited: once(started.subprocess, 'exit') as Promise<[number | null, NodeJS.Signals | null]> }, ctx, {
      label: options.label ?? command,
      release: options.release,
    });
  }

  /**
   * Takes over a command that is already running (a foreground `shell` call the user moved here with
   * Ctrl+B, or one start() just spawned): from now on its output goes to this task's buffers and file,
   * and its end, kill and cleanup are the registry's. Synchronous, so no output is lost between the
   * caller letting go of the pipe and this listening to it. `exited` was taken when the process
   * started (an exit before the handover is not missed); `earlier` says what it printed before.
   * The task's file holds the output from the handover on, and the earlier output too when the caller
   * still had all of it in memory (up to 32 KB; past that the caller's own saved file holds it).
   * Not limited by maxTasks: the process exists already, and refusing would only leave the user waiting.
   */
  adopt(
    running: ShellProcess & { exited: Promise<[number | null, NodeJS.Signals | null]> },
    ctx: { outputDir?: string },
    options: {
      label: string;
      release?: () => unknown;
      /** The last lines it printed before (for viewing) and how many it printed in all. */
      earlier?: { lines: readonly string[]; total: number };
      /** The raw output so far when the caller still held it all in memory: the task's file then starts with it. */
      earlierBytes?: readonly Buffer[];
    },
  ): BackgroundTaskInfo {
    const { subprocess, pid, tag } = running;
    const id = `bg-${this.nextId++}`;
    const spillFile = ctx.outputDir ? path.join(ctx.outputDir, `${id}-${tag.slice(-12)}.log`) : undefined;
    const info: BackgroundTaskInfo = {
      id,
      command: options.label,
      state: 'running',
      exitCode: null,
      startedAt: this.now(),
      endedAt: undefined,
      recentLines: [],
      outputFile: undefined,
    };
    const task: Task = {
      info,
      pid,
      tag,
      unread: new HeadTailBuffer(UNREAD_LIMITS),
      spill: new SpillFile(spillFile),
      ended: Promise.resolve(),
      wakers: new Set(),
      endNoted: false,
      viewLines: [],
      lineCount: 0,
    };
    remember(task, options.earlier?.lines ?? []);
    task.lineCount = options.earlier?.total ?? 0;
    for (const chunk of options.earlierBytes ?? []) task.spill.write(chunk);
    this.tasks.set(id, task);

    const all = subprocess.all;
    task.release = () => {
      // Beans is leaving and the task stays: let go of its pipe so Beans can exit. The task's
      // later writes to it fail; commands kept this way should write to a file themselves.
      all.destroy();
      subprocess.unref();
    };
    const lines = new HeadTailBuffer({ headChars: 0, tailChars: 0, lineChars: UNREAD_LIMITS.lineChars });
    const take = (completed: string[]) => {
      if (completed.length === 0) return;
      for (const line of completed) task.unread.pushLine(line);
      remember(task, completed);
      this.wake(task);
    };
    all.on('data', (chunk: Buffer) => {
      take(lines.write(chunk));
      task.spill.write(chunk);
      info.outputFile ??= task.spill.path;
    });
    const outputEnded = once(all, 'close').catch(() => undefined);
    task.ended = (async () => {
      try {
        const [code] = await running.exited;
        // A process the command started may hold the pipe: wait for the output only briefly.
        await Promise.race([outputEnded, new Promise((resolve) => setTimeout(resolve, 250).unref())]);
        all.destroy();
        untrackProcessGroup(pid);
        // Nothing a task started may outlive it: background jobs, nohup, setsid included.
        await killTaggedProcesses(tag);
        take(lines.end());
        task.spill.close();
        info.outputFile = task.spill.path;
        if (info.state === 'running') {
          info.state = task.stopping ? 'killed' : 'exited';
          info.exitCode = task.stopping ? null : code;
        }
        info.endedAt = this.now();
      } finally {
        try {
          await options.release?.();
        } finally {
          this.wake(task);
        }
      }
    })();
    this.changed();
    return snapshot(info);
  }

  /**
   * A running foreground command offers itself to be moved here (Ctrl+B in chat); `detach` asks it to
   * hand its process over (through adopt()). Returns the withdrawal, called when the command ends.
   */
  offerForeground(detach: () => void): () => void {
    this.foreground.add(detach);
    return () => this.foreground.delete(detach);
  }

  /** Whether a foreground command is running that moveForegroundToBackground() would move. */
  hasForeground(): boolean {
    return this.foreground.size > 0;
  }

  /** Ctrl+B: every running foreground command moves to the background; returns how many were asked. */
  moveForegroundToBackground(): number {
    const asked = [...this.foreground];
    this.foreground.clear();
    for (const detach of asked) detach();
    return asked.length;
  }

  /**
   * What a person viewing a task sees: its last `maxLines` lines (cleaned), how many it printed in all,
   * and the file holding the whole output once it outgrew memory.
   */
  output(id: string, maxLines = VIEW_LINES): { info: BackgroundTaskInfo; lines: string[]; totalLines: number } | undefined {
    const task = this.tasks.get(id.trim());
    if (!task) return undefined;
    return { info: snapshot(task.info), lines: task.viewLines.slice(-maxLines), totalLines: task.lineCount };
  }

  /**
   * Starts work that is not a command (a background subagent) as a task like the others, counted
   * against the same limit: what it writes is its output, kill aborts its signal and waits for it to
   * settle, and its end is told to the model as a command's is. `run` resolves with the exit code
   * and its last output (an agent's answer), which a read sees together with the end.
   */
  startWork(label: string, run: (signal: AbortSignal, write: (text: string) => void) => Promise<{ exitCode: number; output?: string }>): BackgroundTaskInfo {
    const running = this.runningCount();
    if (running >= this.maxTasks)
      throw new BackgroundTaskError(
        `${running} background tasks are already running (the limit is ${this.maxTasks}, setting shell.maxBackgroundTasks): stop one with kill_shell first, or run this in the foreground.`,
      );
    const id = `bg-${this.nextId++}`;
    const info: BackgroundTaskInfo = {
      id,
      command: label,
      state: 'running',
      exitCode: null,
      startedAt: this.now(),
      endedAt: undefined,
      recentLines: [],
      outputFile: undefined,
      kind: 'agent',
    };
    const abort = new AbortController();
    const task: Task = {
      info,
      pid: 0,
      tag: '',
      unread: new HeadTailBuffer(UNREAD_LIMITS),
      spill: new SpillFile(undefined),
      ended: Promise.resolve(),
      wakers: new Set(),
      endNoted: false,
      viewLines: [],
      lineCount: 0,
    };
    task.stop = async () => abort.abort();
    this.tasks.set(id, task);
    const lines = new HeadTailBuffer({ headChars: 0, tailChars: 0, lineChars: UNREAD_LIMITS.lineChars });
    const take = (completed: string[]) => {
      for (const line of completed) task.unread.pushLine(line);
      remember(task, completed);
      if (completed.length > 0) this.wake(task);
    };
    task.ended = (async () => {
      let code: number | null;
      let output: string;
      try {
        const done = await run(abort.signal, (text) => take(lines.write(text)));
        [code, output] = [done.exitCode, done.output ?? ''];
      } catch (error) {
        [code, output] = abort.signal.aborted ? [null, ''] : [1, `${error instanceof Error ? error.message : String(error)}\n`];
      }
      // The last output and the end arrive together: a read that wakes for one sees the other.
      const last = [...lines.write(output), ...lines.end()];
      for (const line of last) task.unread.pushLine(line);
      remember(task, last);
      info.state = task.stopping ? 'killed' : 'exited';
      info.exitCode = task.stopping ? null : code;
      info.endedAt = this.now();
      this.wake(task);
    })();
    this.changed();
    return snapshot(info);
  }

  /** Every task of the session, oldest first (copies). */
  list(): BackgroundTaskInfo[] {
    return [...this.tasks.values()].map((task) => snapshot(task.info));
  }

  get(id: string): BackgroundTaskInfo | undefined {
    const task = this.tasks.get(id.trim());
    return task && snapshot(task.info);
  }

  runningCount(): number {
    return this.list().filter((task) => task.state === 'running').length;
  }

  /**
   * The output since the last read. With `waitMs`, waits up to that long for new output (new output
   * that matches `filter`, when one is given) or the task's end. `filter` is an RE2 pattern tester.
   */
  async read(id: string, options: { filter?: (line: string) => boolean; waitMs?: number; signal?: AbortSignal } = {}): Promise<BackgroundTaskRead | undefined> {
    const task = this.tasks.get(id.trim());
    if (!task) return undefined;
    const deadline = this.now() + (options.waitMs ?? 0);
    const pending: string[] = [];
    let linesCut = 0;
    let linesFiltered = 0;
    const drain = () => {
      task.unread.end();
      linesCut += task.unread.linesCut;
      const text = task.unread.render();
      task.unread = new HeadTailBuffer(UNREAD_LIMITS);
      if (!text) return;
      const cutMarker = /^\u2026 \[[\d,]+ lines cut\] \u2026$/;
      for (const line of text.split('\n')) {
        // With a filter, the cut is told in a note (read's linesCut), not as a line that matches nothing.
        if (!options.filter) pending.push(line);
        else if (cutMarker.test(line)) continue;
        else if (options.filter(line)) pending.push(line);
        else linesFiltered++;
      }
    };
    drain();
    while (pending.length === 0 && task.info.state === 'running' && this.now() < deadline && !options.signal?.aborted) {
      await this.nextChange(task, deadline - this.now(), options.signal);
      drain();
    }
    if (task.info.state !== 'running') task.endNoted = true; // the read itself tells the model
    return { info: snapshot(task.info), text: pending.join('\n'), linesCut, linesFiltered };
  }

  /** Stops a task's whole process tree (SIGTERM, then SIGKILL); resolves once it has ended. */
  async kill(id: string): Promise<BackgroundTaskInfo | undefined> {
    const task = this.tasks.get(id.trim());
    if (!task) return undefined;
    if (task.info.state === 'running') {
      task.stopping ??= task.stop ? task.stop() : killProcessGroup(task.pid).then(() => void killTaggedProcesses(task.tag));
      await task.stopping;
      await task.ended;
      task.endNoted = true; // kill_shell's answer tells the model
      this.changed();
    }
    return snapshot(task.info);
  }

  /** Stops every running task (a session's end); returns those that were running. */
  async killAll(): Promise<BackgroundTaskInfo[]> {
    const running = this.list().filter((task) => task.state === 'running');
    await Promise.all(running.map((task) => this.kill(task.id)));
    return running;
  }

  /**
   * Leaves running commands to themselves (`--keep-tasks`): Beans no longer holds their pipes. Work
   * inside Beans (background subagents) cannot outlive it: it is stopped.
   */
  release(): BackgroundTaskInfo[] {
    const all = [...this.tasks.values()].filter((task) => task.info.state === 'running');
    for (const task of all) if (task.stop) void this.kill(task.info.id);
    const running = all.filter((task) => !task.stop);
    for (const task of running) task.release?.();
    return running.map((task) => snapshot(task.info));
  }

  /**
   * What the model should know before its next turn, or undefined: tasks that ended since it was
   * last told, and those still running (so it does not start a second server on the same port).
   */
  contextNote(): string | undefined {
    const lines: string[] = [];
    for (const task of this.tasks.values()) {
      const info = task.info;
      if (info.state === 'running') lines.push(`- ${info.id} is running (${formatDuration(this.now() - info.startedAt)}): ${info.command}`);
      else if (!task.endNoted) {
        task.endNoted = true;
        lines.push(`- ${info.id} ${describeEnd(info)}: ${info.command}`);
      }
    }
    if (lines.length === 0) return undefined;
    return `Background tasks (read their output with shell_output, stop them with kill_shell):\n${lines.join('\n')}`;
  }

  /**
   * Tasks that ended since the model was last told, in one line each, or undefined; each is told
   * once (here, by a read that showed its end, by kill, or by contextNote()).
   */
  endedNote(): string | undefined {
    const lines: string[] = [];
    for (const task of this.tasks.values()) {
      if (task.info.state === 'running' || task.endNoted) continue;
      task.endNoted = true;
      lines.push(
        `[Background task ${task.info.id} ${describeEnd(task.info)} after ${formatDuration((task.info.endedAt ?? this.now()) - task.info.startedAt)}: ${task.info.command}]`,
      );
    }
    return lines.length > 0 ? lines.join('\n') : undefined;
  }

  /** Called whenever a task starts or ends (status lines). Returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private wake(task: Task): void {
    for (const waker of task.wakers) waker();
    task.wakers.clear();
    if (task.info.state !== 'running') this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private nextChange(task: Task, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        task.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      task.wakers.add(done);
    });
  }
}

function snapshot(info: BackgroundTaskInfo): BackgroundTaskInfo {
  return { ...info, recentLines: [...info.recentLines] };
}

/** "exited with code 0", "was killed", "ended by a signal". */
export function describeEnd(info: BackgroundTaskInfo): string {
  if (info.state === 'killed') return 'was killed';
  if (info.exitCode === null) return 'was ended by a signal';
  return `exited with code ${info.exitCode}`;
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
