import { createInterface } from 'node:readline';
import { runSdkProtocol, sdkWarningsOnce } from '@beans/core';
import { cliSessionOptions } from './bootstrap.js';
import type { CliOptions } from './options.js';
import { SIGNAL_EXIT_CODES, onStopSignals, type StopSignal } from './signals.js';

/**
 * `--input-format stream-json --output-format stream-json`: Beans as the subprocess of a Claude
 * Agent SDK program. stdout carries only protocol lines; notes go to stderr.
 */
export async function runSdkSubprocess(options: CliOptions): Promise<number> {
  sdkWarningsOnce();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let stoppedBy: StopSignal | undefined;
  const controller = new AbortController();
  // A stop signal interrupts the turn in flight, ends the input and closes the session.
  const removeSignals = onStopSignals((signal) => {
    stoppedBy = signal;
    controller.abort();
    lines.close();
  });
  const code = await runSdkProtocol({
    session: cliSessionOptions(options, 'one-shot'),
    permissionPromptTool: options.permissionPromptTool,
    awaitInitialize: options.awaitInitialize === true,
    includePartialMessages: options.includePartialMessages,
    lines,
    write: (line) => process.stdout.write(`${line}\n`),
    warn: (text) => process.stderr.write(`beans: ${text}\n`),
    signal: controller.signal,
  }).finally(removeSignals);
  return stoppedBy ? SIGNAL_EXIT_CODES[stoppedBy] : code;
}
