import type { ChatAgent } from '../chat-agent.js';
import type { FirstFrame } from './first-frame.js';
import { ChatController } from './controller.js';
import { editDraftExternally } from './external-editor.js';
import { loadHighlighter } from './highlight.js';
import { KeyDecoder } from './keys.js';
import { eraseLiveArea, inkStdout } from './resize-redraw.js';
import type { StyledLine } from './styled.js';
import { suspendAsJob } from './suspend.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, CLEAR_TERMINAL } from './terminal-codes.js';
import { SIGNAL_EXIT_CODES, onStopSignals } from '../signals.js';

export interface RunChatOptions {
  noColor: boolean;
  /** Streams for tests; the process's own by default. */
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** Ink's debug mode: every frame is written whole (component tests read frames). */
  debug?: boolean;
  /** `beans -r` without an id: the resume picker opens over the new session. */
  openResume?: boolean;
  /** `beans "..."`: sent as the first message once the chat is drawn, as if typed. */
  initialPrompt?: string;
  /** The prompt drawn before the session was built (first-frame.ts): erased as Ink draws in its place. */
  firstFrame?: FirstFrame;
  /**
   * A view of a session served by this process (`beans attach`, drawn here for a remote terminal):
   * leaving closes the view only, the process's signals and console stay the server's, and nothing
   * that needs the local machine's terminal (Ctrl+Z, Ctrl+G's editor) is offered.
   */
  attached?: boolean;
  /** Closes the chat as if the user left (an attached view whose terminal went away). */
  close?: AbortSignal;
}

/** A window being dragged sends a burst of resizes; the live area is drawn again once it settles. */
const RESIZE_SETTLE_MS = 50;
/** How long after the chat's own first frame keys are still taken as typed ahead (first-frame.ts). */
const STARTUP_TYPING_MS = 500;

/**
 * Loads Ink and React with the environment the interactive UI needs, then puts it back (the shell
 * tool's commands inherit our environment):
 * - React's production build unless NODE_ENV was chosen: the development build is several times
 *   slower and allocates far more (a 3,000-line answer peaked near 370 MB);
 * - without CI / CONTINUOUS_INTEGRATION: Ink reads them once, at import, and in "CI mode" it never
 *   draws the live area, so a developer who exports CI=1 would get a chat without an input box;
 * - for an attached view, colours forced on (chalk reads FORCE_COLOR once, at import).
 */
async function loadMount(attached: boolean): Promise<typeof import('./mount.js')> {
  const saved = {
    NODE_ENV: process.env.NODE_ENV,
    CI: process.env.CI,
    CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION,
    FORCE_COLOR: process.env.FORCE_COLOR,
  };
  if (saved.NODE_ENV === undefined) process.env.NODE_ENV = 'production';
  // Drawn for a remote terminal: colours are not the server's stdout's to decide (256, which every
  // terminal `beans attach` runs in takes; NO_COLOR on the attaching side still turns them off).
  if (attached && saved.FORCE_COLOR === undefined) process.env.FORCE_COLOR = '2';
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    return await import('./mount.js');
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** Loads the chat's view for attached terminals ahead of the first `beans attach` (the session server calls it once it listens). */
export async function preloadAttachedChat(): Promise<void> {
  await loadMount(true);
}

/**
 * The first frame drawn before the session (first-frame.ts) goes in the same write as Ink's first
 * output: erased any sooner, the screen would stay empty while React renders (~20-40 ms).
 */
function eraseBeforeFirstWrite(stdout: NodeJS.WriteStream, erase: string): void {
  if (!erase) return;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, and called with .call(this)
  const write = stdout.write;
  stdout.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    stdout.write = write;
    return (write as (...args: unknown[]) => boolean).call(this, typeof chunk === 'string' ? erase + chunk : (write.call(this, erase), chunk), ...rest);
  };
}

/**
 * The interactive session: renders until the user leaves, then prints the session id and how to
 * resume. Resolves with the exit code: 0, or 130 after Ctrl+C twice.
 */
export async function runChat(host: ChatAgent, options: RunChatOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const { mountChat } = await loadMount(options.attached === true);
  let exitCode = 0;
  let unmount: () => void = () => undefined;
  const width = () => Math.max(20, stdout.columns || 80);
  const mount = () =>
    // Ink replaces its defaults with any key present, even an undefined one: pass only real streams.
    mountChat(controller, {
      noColor: options.noColor,
      stdin: options.stdin ?? process.stdin,
      // Each view gets its own stdout that never sees a resize (resize-redraw.ts); debug frames are
      // written whole, so tests keep the plain stream and the full redraw.
      stdout: options.debug ? stdout : (view = inkStdout(stdout, () => (onScreen = controller.liveLines))).stream,
      stderr: options.stderr ?? process.stderr,
      debug: options.debug,
      patchConsole: !options.attached,
    });
  let instance: ReturnType<typeof mount> | undefined;
  let view: ReturnType<typeof inkStdout> | undefined;
  // The live area as a view last wrote it to the terminal (none after an erase, until the next write).
  let onScreen: StyledLine[] = [];
  const controller = new ChatController(host, {
    width: width(),
    exit: (code) => {
      exitCode = code;
      unmount();
    },
    // Ink remembers what it drew (and, for <Static>, everything it ever printed): after the terminal
    // reflowed those rows, only a new instance on a cleared screen draws cleanly.
    repaint: () => {
      if (!instance) return;
      instance.unmount();
      stdout.write(CLEAR_TERMINAL);
      instance = mount();
    },
    writeTerminal: (data) => stdout.write(data),
    ...(options.attached
      ? { leaveRunning: true }
      : {
          editDraft: (draft: string) => editDraftExternally(draft, { stdin: options.stdin ?? process.stdin, stdout }),
          suspend: () => suspendAsJob({ stdin: options.stdin ?? process.stdin, stdout }, instance, () => controller.redraw()),
        }),
  });
  // Bracketed paste lets a pasted text with newlines arrive as one piece instead of many Enters.
  if (stdout.isTTY) stdout.write(BRACKETED_PASTE_ON);
  if (options.firstFrame) eraseBeforeFirstWrite(stdout, options.firstFrame.handOver());
  instance = mount();
  // Loops and cron tasks fire here (an attached view leaves that to the server that hosts the
  // session), from before the keys typed ahead are replayed: a /loop among them is taken.
  if (!options.attached) host.schedules.start();
  // The command line's prompt goes first; keys typed while the session was built follow it.
  if (options.initialPrompt) controller.submitTyped(options.initialPrompt);
  // Keys typed while the session was built, in order and before anything Ink reads itself.
  const typedAhead = new KeyDecoder();
  options.firstFrame?.replay((input) => {
    for (const event of typedAhead.decode(input)) controller.handleKey(event);
  });
  controller.startingUp = options.firstFrame !== undefined;
  // After the first frame: code blocks are highlighted from the first answer on, at no start-up cost.
  setImmediate(() => {
    void loadHighlighter();
    // The context window needs a request (the HTTP client loads, ~20 ms); MCP servers of the last run start.
    host.lookUpContextWindow();
    host.startMcpServers();
    // The work above keeps the process busy a moment more: keys typed during it still pile up.
    setTimeout(() => (controller.startingUp = false), STARTUP_TYPING_MS).unref?.();
  });
  if (options.openResume) controller.runCommand('resume');
  // React commits the closing frame (no live area) in a microtask; unmount after it.
  unmount = () => setTimeout(() => instance?.unmount(), 0);
  let settle: NodeJS.Timeout | undefined;
  // A resize redraws the live area only, in time that does not grow with the transcript: the
  // terminal reflows its own scrollback (Ctrl+L lays the whole transcript out again on demand). While
  // the window is dragged the old view stays as the terminal reflowed it and draws nothing; once the
  // drag settles its rows are erased as they stand now and a fresh view draws the live area below
  // the transcript, printing only rows not printed yet.
  const onResize = () => {
    clearTimeout(settle);
    if (options.debug) {
      settle = setTimeout(() => controller.redraw(width()), RESIZE_SETTLE_MS);
      return;
    }
    view?.mute();
    controller.pauseOutput();
    settle = setTimeout(() => {
      if (controller.closed || !instance) return;
      instance.unmount();
      stdout.write(eraseLiveArea(onScreen, width()));
      onScreen = [];
      controller.resized(width());
      instance = mount();
    }, RESIZE_SETTLE_MS);
  };
  stdout.on('resize', onResize);
  // SIGTERM and SIGHUP (a closed terminal) leave like Ctrl+C twice: the turn stops, the session is kept.
  const removeSignals = options.attached ? () => undefined : onStopSignals((signal) => controller.exit(SIGNAL_EXIT_CODES[signal]));
  const closeNow = () => controller.exit(0);
  if (options.close?.aborted) closeNow();
  options.close?.addEventListener('abort', closeNow, { once: true });
  try {
    // A redraw swaps the instance: wait for the one that is current when the last one ends.
    for (let current = instance; ; current = instance) {
      await current.waitUntilExit();
      if (current === instance) break;
    }
  } finally {
    clearTimeout(settle);
    stdout.off('resize', onResize);
    removeSignals();
    options.close?.removeEventListener('abort', closeNow);
    if (stdout.isTTY) stdout.write(BRACKETED_PASTE_OFF);
    controller.dispose();
  }
  const id = host.session.id;
  // Only a session with messages was written; promising to resume an empty one would fail.
  if (!options.attached && host.session.messages.length > 0) stdout.write(`\nSession ${id} saved.\nResume it with: beans --resume ${id}\n`);
  return exitCode;
}
