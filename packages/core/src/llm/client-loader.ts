import { ConfigError } from '../errors.js';
import type { LLMClient, ProviderDefinition, ProviderOptions } from './types.js';

/**
 * The one place a provider definition reaches a client module: each module (and its SDK) is
 * imported on first use, so start-up loads none, and no definition imports a client, which would
 * close an import circle (clients read the definitions for their failures and prices).
 */
export async function loadClient(definition: ProviderDefinition, options: ProviderOptions): Promise<LLMClient> {
  return definition.create ? definition.create(options) : loadBuiltinClient(definition, options);
}

/** The client module the definition names, whatever its own `create` does (which may call this). */
export async function loadBuiltinClient(definition: ProviderDefinition, options: ProviderOptions): Promise<LLMClient> {
  switch (definition.client) {
    case 'anthropic':
      return (await import('./anthropic-client.js')).createAnthropicClient(options);
    case 'gemini':
      return (await import('./gemini-client.js')).createGeminiClient(options);
    case 'local':
      // node-llama-cpp (an optional dependency) loads only when the local client makes its first request.
      return (await import('./local-client.js')).createLocalClient(options);
    case 'ollama':
      return (await import('./ollama-client.js')).createOllamaClient(options);
    case 'openai':
      // An OpenAI-compatible endpoint without a key variable (LM Studio, llama.cpp) needs no key.
      return (await import('./openai-client.js')).createOpenAiClient(definition, options, (definition.apiKeyEnv?.length ?? 0) > 0);
    case undefined:
      throw new ConfigError(`The provider "${definition.id}" has neither a client nor a create function.`);
  }
}
