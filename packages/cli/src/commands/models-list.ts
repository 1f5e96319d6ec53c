import { BeansError, ProviderError, providerDefinition } from '@beans/core';
import { clientFor, loadBase, providerIdOf } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans models list [--json]`: the models the active provider offers. */
export async function modelsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const providerId = providerIdOf(base);
  const client = await clientFor(base, providerId);
  let models;
  try {
    models = await client.listModels();
  } catch (error) {
    if (error instanceof BeansError) throw error; // already one sentence with its exit code (a missing key, an unreachable host)
    throw new ProviderError(`Could not list ${providerId} models: ${error instanceof Error ? error.message : String(error)}`, 'unreachable', 3);
  }
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ provider: providerId, models })}\n`);
    return 0;
  }
  if (models.length === 0) {
    const hint = providerDefinition(providerId)?.hints.noModels;
    process.stdout.write(`No ${providerId} models found.${hint ? ` ${hint}` : ''}\n`);
    return 0;
  }
  const width = Math.max(...models.map((model) => model.name.length));
  for (const model of models) {
    const notes = [model.contextWindow ? `${Math.round(model.contextWindow / 1000)}k context` : '', model.supportsTools === false ? 'no tools' : ''].filter(Boolean).join(', ');
    process.stdout.write(`${model.name.padEnd(width)}  ${notes}\n`);
  }
  return 0;
}
