import type { ProviderDefinition } from './types.js';

const providers = new Map<string, ProviderDefinition>();

/** Adds a provider; a new provider is one file that calls this. */
export function registerProvider(definition: ProviderDefinition): void {
  providers.set(definition.id, definition);
}

export function getProvider(id: string): ProviderDefinition | undefined {
  return providers.get(id);
}

export function listProviders(): ProviderDefinition[] {
  return [...providers.values()];
}
