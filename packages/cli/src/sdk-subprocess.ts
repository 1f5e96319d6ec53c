import { createInterface } from 'node:readline';
import { runSdkProtocol } from '@beans/core';
import { cliSessionOptions } from './bootstrap.js';
import type { CliOptions } from './options.js';

/**
 * `--input-format stream-json --output-format stream-json`: Beans as the subprocess of a Claude
 * Agent SDK program. stdout carries only protocol lines; notes go to stderr.
 */
export async function runSdkSubprocess(options: CliOptions): Promise<number> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return runSdkProtocol({
    session: cliSessionOptions(options, 'one-shot'),
    permissionPromptTool: options.permissionPromptTool,
    includePartialMessages: options.includePartialMessages,
    lines,
    write: (line) => process.stdout.write(`${line}\n`),
    warn: (text) => process.stderr.write(`beans: ${text}\n`),
  });
}
