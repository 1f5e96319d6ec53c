import { ALTERNATE_SCREEN_OFF, ALTERNATE_SCREEN_ON, BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, HIDE_CURSOR, SHOW_CURSOR } from './terminal-codes.js';

/**
 * Giving the terminal to another program (Ctrl+G's editor) or to the shell (Ctrl+Z), and taking it
 * back. While Beans holds it, the terminal is in raw mode with bracketed paste on and the cursor
 * hidden (Ink draws its own); whoever gets it next expects a cooked terminal with a visible cursor.
 */

export interface Terminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

export interface HandoverOptions {
  /**
   * Run the other program on the alternate screen, so that leaving it puts back the screen exactly as
   * it was (transcript, live area, cursor): Ink's next frame then lands where it expects.
   */
  alternateScreen?: boolean;
}

/** Puts the terminal back the way a shell expects it; returns what `take` needs to undo it. */
export function releaseTerminal(terminal: Terminal, options: HandoverOptions = {}): { raw: boolean } {
  const raw = terminal.stdin.isTTY === true && terminal.stdin.isRaw;
  if (raw) terminal.stdin.setRawMode(false);
  if (terminal.stdout.isTTY) terminal.stdout.write(BRACKETED_PASTE_OFF + SHOW_CURSOR + (options.alternateScreen ? ALTERNATE_SCREEN_ON : ''));
  return { raw };
}

/** Takes the terminal back after `releaseTerminal`. */
export function takeTerminal(terminal: Terminal, released: { raw: boolean }, options: HandoverOptions = {}): void {
  if (released.raw && terminal.stdin.isTTY) terminal.stdin.setRawMode(true);
  if (terminal.stdout.isTTY) terminal.stdout.write((options.alternateScreen ? ALTERNATE_SCREEN_OFF : '') + BRACKETED_PASTE_ON + HIDE_CURSOR);
}

/** Runs `work` (synchronous: nothing else may read the keys meanwhile) with the terminal handed over. */
export function withTerminalHandedOver<T>(terminal: Terminal, work: () => T, options: HandoverOptions = {}): T {
  const released = releaseTerminal(terminal, options);
  try {
    return work();
  } finally {
    takeTerminal(terminal, released, options);
  }
}
