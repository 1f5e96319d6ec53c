import type { ChildProcess } from 'node:child_process';
import { ansiLine } from './ansi-spans.js';
import { span, type StyledLine } from './styled.js';

/** Claude Code runs the command at most every 300 ms; so does Beans. */
const THROTTLE_MS = 300;
/** A command slower than this is stopped, and draws nothing that time. */
const TIMEOUT_MS = 5_000;
const MAX_OUTPUT = 64 * 1024;

export interface StatusCommandOptions {
  command: string;
  padding: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Claude Code's JSON for the command's stdin, built when it runs. */
  input(): unknown;
  /** The drawn line changed. */
  changed(): void;
}

/** What `/statusline` reports about the newest run. */
export interface StatusRun {
  at: number;
  ms: number;
  /** Exit code; undefined when it could not start or was stopped. */
  code?: number;
  /** Why nothing is drawn, when nothing is. */
  problem?: string;
  firstLine?: string;
}

/**
 * The `statusLine` command (Claude Code's `{"type": "command"}`): run through `sh` in the
 * workspace with the session as JSON on stdin; the first line of its stdout is drawn above the
 * footer. It runs when asked (after each message, on a mode or model change), at most every
 * 300 ms, one run at a time, never waited on: the input stays live, and a failing or slow command
 * draws nothing.
 */
export class StatusCommand {
  line?: StyledLine;
  last?: StatusRun;
  private child?: ChildProcess;
  private pending = false;
  private lastStart = 0;
  private timer?: NodeJS.Timeout;
  private disposed = false;

  constructor(private readonly options: StatusCommandOptions) {}

  get command(): string {
    return this.options.command;
  }

  refresh(): void {
    if (this.disposed) return;
    if (this.child || this.timer) {
      this.pending = true;
      return;
    }
    const wait = this.lastStart + THROTTLE_MS - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.refresh();
      }, wait);
      this.timer.unref?.();
      return;
    }
    void this.run();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.child?.kill('SIGKILL');
  }

  private async run(): Promise<void> {
    this.lastStart = Date.now();
    this.pending = false;
    // Loaded when a status line is configured: child_process is not on the chat's start-up path otherwise.
    const { spawn } = await import('node:child_process');
    const started = Date.now();
    let stdout = '';
    let problem: string | undefined;
    const child = spawn('sh', ['-c', this.options.command], {
      cwd: this.options.cwd,
      env: this.options.env,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    });
    this.child = child;
    const timer = setTimeout(() => {
      problem = `stopped after ${TIMEOUT_MS / 1000} s`;
      killGroup(child);
    }, TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk;
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(this.options.input()));
    const code = await new Promise<number | undefined>((resolve) => {
      child.on('error', (error) => {
        problem = error.message;
        resolve(undefined);
      });
      child.on('close', (exit) => resolve(exit ?? undefined));
    });
    clearTimeout(timer);
    this.child = undefined;
    if (this.disposed) return;
    const firstLine = stdout.split('\n')[0].replace(/\r$/, '');
    if (!problem && code !== 0) problem = `exited with code ${code}`;
    if (!problem && firstLine.trim() === '') problem = 'printed nothing';
    this.last = { at: started, ms: Date.now() - started, ...(code !== undefined ? { code } : {}), ...(problem ? { problem } : { firstLine }) };
    this.line = problem ? undefined : [span(' '.repeat(this.options.padding)), ...ansiLine(firstLine)];
    this.options.changed();
    if (this.pending) this.refresh();
  }
}

/** The command and whatever it started: it runs in its own process group. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
