import { anthropicProvider } from './anthropic.js';
import { geminiProvider } from './gemini.js';
import { localProvider } from './local.js';
import { ollamaProvider } from './ollama.js';
import { openaiProvider } from './openai.js';
import { getProvider, registerProvider } from './registry.js';
import type { ProviderDefinition } from './types.js';

// The definitions and the lookup the clients' failures and prices read. Nothing here reaches a
// client module: clients import this file, and the client loader sits above both (no import circle).

/** The built-in providers, in the order a provider is chosen when none is configured. */
export const BUILTIN_PROVIDERS: readonly ProviderDefinition[] = [geminiProvider, anthropicProvider, openaiProvider, ollamaProvider, localProvider];

/** Registers the built-in providers; safe to call any number of times, and never loads an SDK. */
export function registerBuiltinProviders(): void {
  for (const definition of BUILTIN_PROVIDERS) {
    if (!getProvider(definition.id)) registerProvider(definition);
  }
}

/** A registered provider (built-ins always count as registered). */
export function providerDefinition(id: string): ProviderDefinition | undefined {
  registerBuiltinProviders();
  return getProvider(id);
}
