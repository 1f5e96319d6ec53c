import { apiKeyFrom } from './provider-info.js';
import type { FailureHints, ModelPrice, ProviderDefinition } from './types.js';

export const DEFAULT_OPENAI_MODEL = 'gpt-6.1-terra';

// OpenAI standard-tier list prices for text (developers.openai.com/api/docs/pricing, November 2026),
// USD per million tokens; cached input is what the API reports as `prompt_tokens_details.cached_tokens`.
// GPT-6 and 5.6 models bill prompts over 272k input tokens at 2x input and cache, 1.5x output.
const over272k = (input: number, output: number): ModelPrice['longContext'] => ({ threshold: 272_000, inputPerMTok: input * 2, outputPerMTok: output * 1.5 });
const OPENAI_PRICES: [string, ModelPrice][] = [
  ['gpt-6.1-sol', { inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0.1, longContext: over272k(2, 10) }],
  ['gpt-6.1-terra', { inputPerMTok: 1, outputPerMTok: 5, cacheReadPerMTok: 0.05, longContext: over272k(1, 5) }],
  ['gpt-6-sol', { inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0.2, longContext: over272k(2, 10) }],
  ['gpt-6-luna', { inputPerMTok: 0.1, outputPerMTok: 0.5, cacheReadPerMTok: 0.01, longContext: over272k(0.1, 0.5) }],
  ['gpt-5.6-sol', { inputPerMTok: 5, outputPerMTok: 30, longContext: over272k(5, 30) }],
  ['gpt-5.6-terra', { inputPerMTok: 2, outputPerMTok: 12, cacheReadPerMTok: 0.2, longContext: over272k(2, 12) }],
  ['gpt-5.6-luna', { inputPerMTok: 0.2, outputPerMTok: 1.2, cacheReadPerMTok: 0.02, longContext: over272k(0.2, 1.2) }],
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
  // Claude Code's tiers to the nearest current OpenAI models.
  modelAliases: { opus: 'gpt-6.1-sol', fable: 'gpt-6.1-sol', sonnet: 'gpt-6.1-terra', haiku: 'gpt-6-luna' },
  prices: OPENAI_PRICES,
  // Differently billed variants, and newer versions of a family than this table knows.
  unpriced: /-(audio|realtime|search|transcribe|tts|image)|^gpt-5\.[2-5]|^gpt-6\.[2-9]|^gpt-[7-9]/,
  contextWindows: [
    ['gpt-6', 1_050_000],
    ['gpt-5.6', 1_050_000],
    ['gpt-5', 400_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4o', 128_000],
    ['o3', 200_000],
    ['o4-mini', 200_000],
  ],
  maxOutputTokens: (model) => (/^gpt-[56]/.test(model) ? 128_000 : model.startsWith('gpt-4.1') ? 32_768 : 16_384),
  hints: {
    ...openAiCompatibleHints('OpenAI', 'Check OPENAI_API_KEY; you can create a key at https://platform.openai.com/api-keys.'),
    unreachable: 'Cannot reach OpenAI at {host} ({detail}). Check your network connection, or OPENAI_BASE_URL if you set it.',
    missingKey:
      'No OpenAI API key found. Set OPENAI_API_KEY (for a local server that needs none, any value will do), or choose another provider with --provider.',
  },
  isConfigured: (env) => apiKeyFrom({ apiKeyEnv: ['OPENAI_API_KEY'] }, env) !== undefined,
  client: 'openai',
};
