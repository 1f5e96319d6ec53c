import type { LLMClient, ProviderDefinition, ProviderOptions } from './types.js';

export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/** The key Beans uses: GEMINI_API_KEY first, then GOOGLE_API_KEY; empty values count as unset. */
export function geminiApiKey(env: NodeJS.ProcessEnv): string | undefined {
  return env.GEMINI_API_KEY?.trim() || env.GOOGLE_API_KEY?.trim() || undefined;
}

/**
 * Gemini through @google/genai. The SDK is imported only when a client is created, so commands that
 * never talk to Gemini (`--version`, Ollama sessions) do not pay for loading it.
 */
export const geminiProvider: ProviderDefinition = {
  id: 'gemini',
  label: 'Google Gemini (GEMINI_API_KEY or GOOGLE_API_KEY)',
  isConfigured: (env) => geminiApiKey(env) !== undefined,
  // Claude Code agent files name Anthropic tiers; these are the nearest Gemini tiers.
  modelAliases: {
    opus: 'gemini-2.5-pro',
    sonnet: 'gemini-2.5-pro',
    haiku: 'gemini-2.5-flash-lite',
    fable: 'gemini-2.5-flash',
    pro: 'gemini-2.5-pro',
    flash: 'gemini-2.5-flash',
    'flash-lite': 'gemini-2.5-flash-lite',
  },
  async create(options: ProviderOptions): Promise<LLMClient> {
    const { createGeminiClient } = await import('./gemini-client.js');
    return createGeminiClient(options);
  },
};
