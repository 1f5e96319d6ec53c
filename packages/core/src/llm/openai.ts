import { apiKeyFrom } from './provider-info.js';
import type { FailureHints, LLMClient, ModelPrice, ProviderDefinition, ProviderOptions } from './types.js';

export const DEFAULT_OPENAI_MODEL = 'gpt-5-mini';
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

// OpenAI list prices for text (platform.openai.com/docs/pricing), USD per million tokens; cached
// input is what the API reports as `prompt_tokens_details.cached_tokens`.
const OPENAI_PRICES: [string, ModelPrice][] = [
  ['gpt-5.1', { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125 }],
  ['gpt-5', { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125 }],
  ['gpt-5-mini', { inputPerMTok: 0.25, outputPerMTok: 2, cacheReadPerMTok: 0.025 }],
  ['gpt-5-nano', { inputPerMTok: 0.05, outputPerMTok: 0.4, cacheReadPerMTok: 0.005 }],
  ['gpt-4.1', { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 }],
  ['gpt-4.1-mini', { inputPerMTok: 0.4, outputPerMTok: 1.6, cacheReadPerMTok: 0.1 }],
  ['gpt-4.1-nano', { inputPerMTok: 0.1, outputPerMTok: 0.4, cacheReadPerMTok: 0.025 }],
  ['gpt-4o', { inputPerMTok: 2.5, outputPerMTok: 10, cacheReadPerMTok: 1.25 }],
  ['gpt-4o-mini', { inputPerMTok: 0.15, outputPerMTok: 0.6, cacheReadPerMTok: 0.075 }],
  ['o3', { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 }],
  ['o3-mini', { inputPerMTok: 1.1, outputPerMTok: 4.4, cacheReadPerMTok: 0.55 }],
  ['o4-mini', { inputPerMTok: 1.1, outputPerMTok: 4.4, cacheReadPerMTok: 0.275 }],
];

/** Messages for any server spoken to with the `openai` package; `{name}` is the provider's. */
export function openAiCompatibleHints(name: string, keyHint: string): FailureHints {
  return {
    name,
    auth: `{name} rejected the API key ({http}){said}. ${keyHint}`,
    unreachable: 'Cannot reach {name} at {host} ({detail}). Check that the server is running and the endpoint address is right.',
  };
}

/** OpenAI, or any server speaking Chat Completions at OPENAI_BASE_URL, through the `openai` package (loaded on use). */
export const openaiProvider: ProviderDefinition = {
  id: 'openai',
  label: 'OpenAI and compatible servers (OPENAI_API_KEY, OPENAI_BASE_URL)',
  apiKeyEnv: ['OPENAI_API_KEY'],
  endpoint: { name: 'baseUrl', describe: 'an OpenAI-compatible endpoint URL such as "https://api.openai.com/v1"', env: 'OPENAI_BASE_URL' },
  defaultModel: DEFAULT_OPENAI_MODEL,
  modelAliases: { opus: 'gpt-5', sonnet: 'gpt-5', fable: 'gpt-5-mini', haiku: 'gpt-5-nano' },
  prices: OPENAI_PRICES,
  unpriced: /-(audio|realtime|search|transcribe|tts|image)/,
  contextWindows: [
    ['gpt-5', 400_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4o', 128_000],
    ['o3', 200_000],
    ['o4-mini', 200_000],
  ],
  maxOutputTokens: (model) => (model.startsWith('gpt-5') ? 128_000 : model.startsWith('gpt-4.1') ? 32_768 : 16_384),
  hints: {
    ...openAiCompatibleHints('OpenAI', 'Check OPENAI_API_KEY; you can create a key at https://platform.openai.com/api-keys.'),
    unreachable: 'Cannot reach OpenAI at {host} ({detail}). Check your network connection, or OPENAI_BASE_URL if you set it.',
    missingKey: 'No OpenAI API key found. Set OPENAI_API_KEY (for a local server that needs none, any value will do), or choose another provider with --provider.',
  },
  isConfigured: (env) => apiKeyFrom({ apiKeyEnv: ['OPENAI_API_KEY'] }, env) !== undefined,
  async create(options: ProviderOptions): Promise<LLMClient> {
    const { createOpenAiClient } = await import('./openai-client.js');
    return createOpenAiClient(openaiProvider, options);
  },
};
