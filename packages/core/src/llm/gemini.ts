import { apiKeyFrom } from './provider-info.js';
import type { ModelPrice, ProviderDefinition } from './types.js';

export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

const GEMINI_KEY_ENV = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/** The key Beans uses: GEMINI_API_KEY first, then GOOGLE_API_KEY; empty values count as unset. */
export function geminiApiKey(env: NodeJS.ProcessEnv): string | undefined {
  return apiKeyFrom({ apiKeyEnv: GEMINI_KEY_ENV }, env);
}

// Gemini API paid-tier list prices for text (ai.google.dev/gemini-api/docs/pricing). Matched by
// longest prefix, so dated variants (gemini-2.5-flash-preview-09-2025, -001) share their family's price.
// Cached input (implicit caching) is billed at the listed context-caching price: a tenth of the
// input price from 2.5 on, a quarter for 2.0 Flash.
const GEMINI_PRICES: [string, ModelPrice][] = [
  ['gemini-3-pro', { inputPerMTok: 2, outputPerMTok: 12, cacheReadPerMTok: 0.2, longContext: { threshold: 200_000, inputPerMTok: 4, outputPerMTok: 18 } }],
  ['gemini-3-flash', { inputPerMTok: 0.5, outputPerMTok: 3, cacheReadPerMTok: 0.05 }],
  [
    'gemini-2.5-pro',
    { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125, longContext: { threshold: 200_000, inputPerMTok: 2.5, outputPerMTok: 15 } },
  ],
  ['gemini-2.5-flash-lite', { inputPerMTok: 0.1, outputPerMTok: 0.4, cacheReadPerMTok: 0.01 }],
  ['gemini-2.5-flash', { inputPerMTok: 0.3, outputPerMTok: 2.5, cacheReadPerMTok: 0.03 }],
  ['gemini-2.0-flash-lite', { inputPerMTok: 0.075, outputPerMTok: 0.3 }],
  ['gemini-2.0-flash', { inputPerMTok: 0.1, outputPerMTok: 0.4, cacheReadPerMTok: 0.025 }],
];

/**
 * Gemini through @google/genai. The SDK is imported only when a client is created, so commands that
 * never talk to Gemini (`--version`, other providers) do not pay for loading it.
 */
export const geminiProvider: ProviderDefinition = {
  id: 'gemini',
  label: 'Google Gemini (GEMINI_API_KEY or GOOGLE_API_KEY)',
  apiKeyEnv: GEMINI_KEY_ENV,
  endpoint: { name: 'baseUrl', describe: 'a Gemini endpoint URL', env: 'GOOGLE_GEMINI_BASE_URL' },
  defaultModel: DEFAULT_GEMINI_MODEL,
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
  prices: GEMINI_PRICES,
  // Variants priced differently from their family's text price (image/audio output, embeddings).
  unpriced: /-(image|tts|live|native-audio|audio|embedding)|^gemini-embedding|-computer-use/,
  contextWindows: [['gemini-', 1_048_576]],
  maxOutputTokens: () => 65_536,
  hints: {
    name: 'Gemini',
    auth: 'Gemini rejected the API key ({http}){said}. Check GEMINI_API_KEY (or GOOGLE_API_KEY); you can create a key at https://aistudio.google.com/apikey.',
    unreachable: 'Cannot reach Gemini at {host} ({detail}). Check your network connection, or GOOGLE_GEMINI_BASE_URL if you set it.',
    missingKey:
      'No Gemini API key found. Set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from https://aistudio.google.com/apikey, or use --provider ollama for local models.',
  },
  isConfigured: (env) => geminiApiKey(env) !== undefined,
  client: 'gemini',
};
