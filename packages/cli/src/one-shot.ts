import { SdkMessageMapper, UsageError, exitCodeForFailure, modelLimits } from '@beans/core';
import { createCliSession } from './bootstrap.js';
import type { CliOptions } from './options.js';
import { exitCodeForRun, limitMessage } from './output/result.js';
import { SIGNAL_EXIT_CODES, onStopSignals, type StopSignal } from './signals.js';

/** `beans -p`: runs the agent to completion and prints the answer in the chosen format. */
export async function runOneShot(options: CliOptions, prompt: string, started: number): Promise<number> {
  const agent = await createCliSession(options, 'one-shot');
  const { session } = agent;
  const format = options.outputFormat;
  const writeLine = (line: string) => process.stdout.write(`${line}\n`);
  if (agent.modelNote && format === 'text') process.stderr.write(`beans: ${agent.modelNote}\n`);

  const prepared = await agent.preparePrompt(prompt);
  if ('error' in prepared) throw new UsageError(prepared.error);

  const mapper = new SdkMessageMapper({ sessionId: session.id, includePartialMessages: options.includePartialMessages, modelLimits: (model) => modelLimits(agent.providerId, model) });
  if (format === 'stream-json') {
    writeLine(JSON.stringify(mapper.init(agent.initInfo())));
    session.subscribe((event) => {
      for (const message of mapper.event(event)) writeLine(JSON.stringify(message));
    });
  } else if (format === 'json') {
    session.subscribe((event) => void mapper.event(event)); // usage per model for the result
  }

  // A wait for a retry can last seconds; say so on stderr, where it never mixes with the answer.
  session.subscribe((event) => {
    if (event.type !== 'retry') return;
    const cause = event.failure.status ? `HTTP ${event.failure.status}` : 'a dropped connection';
    process.stderr.write(`beans: ${session.provider} answered with ${cause}; retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt}).\n`);
  });

  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  const result = await session.prompt(prepared.messages, controller.signal).finally(removeSignals);
  agent.close();

  const values = agent.config.values;
  const limit = limitMessage(result, { maxTurns: values.maxTurns, maxBudgetUsd: values.maxBudgetUsd });
  const error = result.failure?.message ?? limit ?? (result.stopReason === 'aborted' ? 'Interrupted.' : undefined);
  const code = stoppedBy ? SIGNAL_EXIT_CODES[stoppedBy] : exitCodeForRun(result, result.failure ? exitCodeForFailure(result.failure) : 1);

  if (format === 'text') {
    if (result.stopReason === 'completed') writeLine(result.finalText);
    else if (error) process.stderr.write(`beans: ${error}\n`);
  } else {
    writeLine(JSON.stringify(mapper.result({ result, durationMs: Date.now() - started, error })));
    if (error && code !== 0) process.stderr.write(`beans: ${error}\n`);
  }
  return code;
}
