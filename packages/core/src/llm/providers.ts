import { ConfigError } from '../errors.js';
import { geminiApiKey, geminiProvider } from './gemini.js';
import { ollamaProvider } from './ollama.js';
import { getProvider, listProviders, registerProvider } from './registry.js';
import type { LLMClient, ProviderOptions } from './types.js';

/** Registers Gemini and Ollama; safe to call any number of times, and never loads an SDK. */
export function registerBuiltinProviders(): void {
  for (const definition of [geminiProvider, ollamaProvider]) {
    if (!getProvider(definition.id)) registerProvider(definition);
  }
}

/** Creates a client for a registered provider; an unknown id is a ConfigError naming the known ones. */
export async function createClient(providerId: string, options: ProviderOptions = {}): Promise<LLMClient> {
  registerBuiltinProviders();
  const definition = getProvider(providerId);
  if (!definition) {
    const known = listProviders().map((p) => p.id).join(', ');
    throw new ConfigError(`Unknown provider "${providerId}". Known providers: ${known}.`);
  }
  return definition.create(options);
}

/** Gemini when a key is set, otherwise the local Ollama. */
export function defaultProviderId(env: NodeJS.ProcessEnv = process.env): 'gemini' | 'ollama' {
  return geminiApiKey(env) ? 'gemini' : 'ollama';
}

/**
 * The model an agent file's `model:` means for a provider: `inherit` (or nothing) keeps the active
 * model, a Claude alias (sonnet, opus, haiku, fable) maps through the provider's aliases, and any
 * other name is taken as a model of that provider.
 */
export function resolveModelAlias(providerId: string, name: string | undefined, activeModel: string): string {
  const wanted = name?.trim();
  if (!wanted || wanted === 'inherit') return activeModel;
  registerBuiltinProviders();
  const aliases = getProvider(providerId)?.modelAliases ?? {};
  return aliases[wanted.toLowerCase()] ?? (isClaudeAlias(wanted) ? activeModel : wanted);
}

// A Claude alias the provider does not map (Ollama has no fixed models) falls back to the active model.
function isClaudeAlias(name: string): boolean {
  return /^(sonnet|opus|haiku|fable)$/i.test(name) || /^claude-/i.test(name);
}
