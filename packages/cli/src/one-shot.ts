import { UsageError, exitCodeForFailure } from '@beans/core';
import { createApp } from './bootstrap.js';
import type { CliOptions } from './options.js';
import { exitCodeForRun, limitMessage, resultMessage } from './output/result.js';
import { streamJsonWriter } from './output/stream-json.js';
import { preparePrompt } from './prepare-prompt.js';

/** `beans -p`: runs the agent to completion and prints the answer in the chosen format. */
export async function runOneShot(options: CliOptions, prompt: string, started: number): Promise<number> {
  const app = await createApp(options, 'one-shot');
  const { session } = app;
  const format = options.outputFormat;
  const writeLine = (line: string) => process.stdout.write(`${line}\n`);
  if (app.modelNote && format === 'text') process.stderr.write(`beans: ${app.modelNote}\n`);

  const prepared = await preparePrompt(prompt, app.catalog);
  if ('error' in prepared) throw new UsageError(prepared.error);

  if (format === 'stream-json') {
    writeLine(JSON.stringify({
      type: 'system',
      subtype: 'init',
      session_id: session.id,
      cwd: app.base.workspace.cwd,
      model: session.model,
      provider: session.provider,
      tools: session.tools.names(),
      agents: app.catalog.agents().map((agent) => agent.name),
      skills: app.catalog.skills().map((skill) => skill.name),
      slash_commands: app.catalog.commands().map((command) => command.name),
      permissionMode: app.base.config.values.permissions.mode,
    }));
    session.subscribe(streamJsonWriter(session.id, writeLine));
  }

  // A wait for a retry can last seconds; say so on stderr, where it never mixes with the answer.
  session.subscribe((event) => {
    if (event.type !== 'retry') return;
    const cause = event.failure.status ? `HTTP ${event.failure.status}` : 'a dropped connection';
    process.stderr.write(`beans: ${session.provider} answered with ${cause}; retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt}).\n`);
  });

  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const result = await session.prompt(prepared.messages, controller.signal).finally(() => process.off('SIGINT', onSigint));

  const values = app.base.config.values;
  const limit = limitMessage(result, { maxTurns: values.maxTurns, maxBudgetUsd: values.maxBudgetUsd });
  const error = result.failure?.message ?? limit ?? (result.stopReason === 'aborted' ? 'Interrupted.' : undefined);
  const code = exitCodeForRun(result, result.failure ? exitCodeForFailure(result.failure) : 1);

  if (format === 'text') {
    if (result.stopReason === 'completed') writeLine(result.finalText);
    else if (error) process.stderr.write(`beans: ${error}\n`);
  } else {
    writeLine(JSON.stringify(resultMessage(result, session.id, Date.now() - started, error)));
    if (error && code !== 0) process.stderr.write(`beans: ${error}\n`);
  }
  return code;
}
