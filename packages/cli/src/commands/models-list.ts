import { BeansError, formatModelBytes, listLocalModelFiles, ProviderError, providerDefinition } from '@beans/core';
import { clientFor, loadBase, providerIdOf } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans models list [--json]`: the models the active provider offers, and the local models pulled beside them. */
export async function modelsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const providerId = providerIdOf(base);
  const client = await clientFor(base, providerId);
  // The pulled GGUF files (`beans models pull`), listed with any provider's models; the local provider lists them itself.
  const pulled = providerId === 'local' ? [] : listLocalModelFiles(base.env);
  let models;
  try {
    models = await client.listModels();
  } catch (error) {
    if (!local.json) printPulled(pulled, false);
    if (error instanceof BeansError) throw error; // already one sentence with its exit code (a missing key, an unreachable host)
    throw new ProviderError(`Could not list ${providerId} models: ${error instanceof Error ? error.message : String(error)}`, 'unreachable', 3);
  }
  if (local.json) {
    process.stdout.write(
      `${JSON.stringify({ provider: providerId, models, local: pulled.map((entry) => ({ name: entry.name, file: entry.file, bytes: entry.bytes })) })}\n`,
    );
    return 0;
  }
  try {
    return printModels(providerId, models);
  } finally {
    printPulled(pulled, true);
  }
}

function printPulled(pulled: { name: string; bytes: number }[], after: boolean): void {
  if (pulled.length === 0) return;
  const width = Math.max(...pulled.map((entry) => entry.name.length));
  process.stdout.write(`${after ? '\n' : ''}Local models (use with --provider local -m <name>):\n`);
  for (const entry of pulled) process.stdout.write(`${entry.name.padEnd(width)}  ${formatModelBytes(entry.bytes)}\n`);
}

function printModels(providerId: string, models: { name: string; contextWindow?: number; supportsTools?: boolean }[]): number {
  if (models.length === 0) {
    const hint = providerDefinition(providerId)?.hints.noModels;
    process.stdout.write(`No ${providerId} models found.${hint ? ` ${hint}` : ''}\n`);
    return 0;
  }
  const width = Math.max(...models.map((model) => model.name.length));
  for (const model of models) {
    const notes = [model.contextWindow ? `${Math.round(model.contextWindow / 1000)}k context` : '', model.supportsTools === false ? 'no tools' : '']
      .filter(Boolean)
      .join(', ');
    process.stdout.write(`${model.name.padEnd(width)}  ${notes}\n`);
  }
  return 0;
}
