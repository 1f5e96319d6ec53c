import type { CliOptions } from '../options.js';
import { SIGNAL_EXIT_CODES, onStopSignals, type StopSignal } from '../signals.js';
import { earlyInitialize } from './early-initialize.js';

/**
 * `beans acp`: an Agent Client Protocol agent on stdin and stdout, for editors (Zed, JetBrains,
 * Neovim, Emacs). stdout carries protocol messages only; notes go to stderr. Runs until the editor
 * closes the connection (or a stop signal), then ends every session (their files stay).
 */
export async function runAcp(cli: CliOptions): Promise<number> {
  const warn = (text: string) => process.stderr.write(`beans: ${text}\n`);
  const early = await earlyInitialize(process.stdin, (line) => process.stdout.write(line), warn);
  // The protocol library loads after the answer, while the editor reads it (evaluating it first
  // would hold the answer back: module evaluation blocks the one thread).
  const { connect } = await import('./serve.js');
  const { connection, closeAll } = connect({ cli, warn, input: early.input, initialized: early.initialized });
  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal) => {
    stoppedBy = signal;
    connection.close();
  });
  await connection.closed.catch(() => undefined);
  removeSignals();
  await closeAll();
  return stoppedBy ? SIGNAL_EXIT_CODES[stoppedBy] : 0;
}
