/**
 * Drives the real `bin/beans` in a tmux pane: a real pseudo-terminal with a size, keys sent the way
 * a terminal sends them, and the screen read back with capture-pane. Each session gets its own
 * tmux server socket, so tests never touch a developer's tmux.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import type { ScriptedServer } from '../support/script.ts';
import type { TempRepo } from '../support/scratch.ts';

export const BEANS_BIN = path.resolve(import.meta.dirname, '../../bin/beans');

export const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

let counter = 0;

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export class TmuxSession {
  private readonly socket: string;
  readonly target: string;

  // Plain fields, not parameter properties: scripts/chat-screenshot.mjs loads this file in Node, which only strips types.
  private constructor(socket: string, target: string) {
    this.socket = socket;
    this.target = target;
  }

  /**
   * Starts `bin/beans <args>` in a detached pane of the given size. The shell keeps the pane open
   * after beans exits and prints `[beans exited with N]`, so tests can read the exit code.
   */
  static start(options: {
    workspace: TempRepo;
    env: Record<string, string>;
    args?: string[];
    columns?: number;
    rows?: number;
    program?: string[];
  }): TmuxSession {
    const socket = `beans-test-${process.pid}-${++counter}`;
    const { workspace } = options;
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: workspace.home,
      XDG_CONFIG_HOME: path.join(workspace.home, '.config'),
      XDG_STATE_HOME: path.join(workspace.home, '.local', 'state'),
      XDG_DATA_HOME: path.join(workspace.home, '.local', 'share'),
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...options.env,
    };
    // `env -i` keeps the developer's (or CI's) environment out of the test.
    const command = [
      'env -i',
      ...Object.entries(env).map(([key, value]) => quote(`${key}=${value}`)),
      ...(options.program ?? [BEANS_BIN]).map(quote),
      ...(options.args ?? ['chat']).map(quote),
      '; echo "[beans exited with $?]"; sleep 600',
    ].join(' ');
    execFileSync('tmux', [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'beans',
      '-x',
      String(options.columns ?? 120),
      '-y',
      String(options.rows ?? 40),
      '-c',
      workspace.dir,
      command,
    ]);
    return new TmuxSession(socket, 'beans');
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** Types text literally (one write), like a fast typist or a small paste. */
  type(text: string): void {
    this.tmux('send-keys', '-t', this.target, '-l', text);
  }

  /** Sends named keys: Enter, Escape, C-c, Up... */
  press(...keys: string[]): void {
    for (const key of keys) this.tmux('send-keys', '-t', this.target, key);
  }

  /** Resizes the window, as dragging the terminal's edge does (the program gets SIGWINCH). */
  resize(columns: number, rows: number): void {
    this.tmux('resize-window', '-t', this.target, '-x', String(columns), '-y', String(rows));
  }

  /** Pastes text as a terminal does: bracketed, when the program asked for bracketed paste. */
  paste(text: string): void {
    this.tmux('set-buffer', '-b', 'beans-paste', text);
    this.tmux('paste-buffer', '-p', '-d', '-b', 'beans-paste', '-t', this.target);
  }

  /** The visible screen plus the scrollback above it. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-1000', '-t', this.target).replace(/\s+$/, '');
  }

  /** Only what is visible now. */
  visible(): string {
    return this.tmux('capture-pane', '-p', '-t', this.target).replace(/\s+$/, '');
  }

  /** What is visible now with its colours and styles as escape sequences (for a picture of the screen). */
  styledVisible(): string {
    return this.tmux('capture-pane', '-e', '-p', '-t', this.target);
  }

  /**
   * Polls the screen until `predicate` holds. The default bound holds at load 8 on two cores, where
   * a start or a step that takes 300 ms alone took 10 s; a passing test waits only as long as it must.
   */
  async waitFor(predicate: (screen: string) => boolean, what: string, timeoutMs = 25_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (predicate(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. Screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Waits until the screen has stayed the same for `quietMs` (a redraw has settled), and returns it;
   * what a fixed sleep assumed, without assuming how fast a busy machine draws.
   */
  async settled(quietMs = 400, timeoutMs = 25_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = this.screen();
    let since = Date.now();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const screen = this.screen();
      if (screen !== last) [last, since] = [screen, Date.now()];
      else if (Date.now() - since >= quietMs) return screen;
      if (Date.now() > deadline) throw new Error(`The screen did not settle in ${timeoutMs} ms. Screen:\n${screen}`);
    }
  }

  waitForText(text: string, timeoutMs?: number): Promise<string> {
    return this.waitFor((screen) => screen.includes(text), JSON.stringify(text), timeoutMs);
  }

  /** Types a line and presses Enter as a separate key, as a person does. */
  async submit(text: string): Promise<void> {
    this.type(text);
    await new Promise((resolve) => setTimeout(resolve, 100));
    this.press('Enter');
  }

  /** Appends everything the program writes to the terminal from now on to `file` (tmux pipe-pane). */
  pipeOutput(file: string): void {
    this.tmux('pipe-pane', '-t', this.target, `cat >> ${quote(file)}`);
  }

  /** Stops pipeOutput. */
  stopPipe(): void {
    this.tmux('pipe-pane', '-t', this.target);
  }

  /** Lets programs in the pane set tmux's clipboard with OSC 52 (tmux's default ignores them). */
  acceptClipboard(): void {
    this.tmux('set-option', '-s', 'set-clipboard', 'on');
  }

  /** The newest paste buffer's text (where an accepted OSC 52 copy lands); '' when there is none. */
  newestBuffer(): string {
    const result = spawnSync('tmux', ['-L', this.socket, 'show-buffer'], { encoding: 'utf8' });
    return result.status === 0 ? result.stdout : '';
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
  }
}

/** What a test opened; push entries here and `afterEach(closeOpen)` ends them all. */
export const open: { session?: TmuxSession; server?: ScriptedServer; workspace?: TempRepo }[] = [];

export async function closeOpen(): Promise<void> {
  for (const entry of open.splice(0)) {
    entry.session?.kill();
    await entry.server?.close();
    entry.workspace?.cleanup();
  }
}
