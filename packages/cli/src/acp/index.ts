import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import type { CliOptions } from '../options.js';
import { SIGNAL_EXIT_CODES, onStopSignals, type StopSignal } from '../signals.js';
import { createAcpAgent } from './agent.js';

/**
 * `beans acp`: an Agent Client Protocol agent on stdin and stdout, for editors (Zed, JetBrains,
 * Neovim, Emacs). stdout carries protocol messages only; notes go to stderr. Runs until the editor
 * closes the connection (or a stop signal), then ends every session (their files stay).
 */
export async function runAcp(cli: CliOptions): Promise<number> {
  const warn = (text: string) => process.stderr.write(`beans: ${text}\n`);
  const { app, closeAll } = createAcpAgent({ cli, warn });
  const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
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
