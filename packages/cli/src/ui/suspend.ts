import { releaseTerminal, takeTerminal, type Terminal } from './terminal-handover.js';

/**
 * Ctrl+Z. In raw mode the terminal sends the key as a byte instead of stopping us, so we do what the
 * terminal would have: erase the live area (the transcript stays), give the terminal back as a shell
 * expects it, say how to come back, and stop with SIGTSTP, the signal a shell's job control honours.
 * `kill` returns once the shell continues us (`fg`): the terminal is taken back and the whole screen
 * drawn again, since the shell has written below our last frame. Where no shell does job control
 * (an orphaned process group), the kernel drops SIGTSTP and the chat simply goes on.
 * Commands the agent started run in their own process groups and keep running meanwhile.
 */
export function suspendAsJob(terminal: Terminal, ink: { clear(): void } | undefined, redraw: () => void): void {
  // Without a terminal (tests, a pipe) there is no shell job to become.
  if (process.platform === 'win32' || !terminal.stdout.isTTY) return;
  ink?.clear();
  const released = releaseTerminal(terminal);
  if (terminal.stdout.isTTY) terminal.stdout.write('Beans is suspended: run `fg` to bring it back.\n');
  try {
    process.kill(process.pid, 'SIGTSTP');
  } finally {
    takeTerminal(terminal, released);
    redraw();
  }
}
