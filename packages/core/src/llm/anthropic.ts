import { apiKeyFrom } from './provider-info.js';
import type { LLMClient, ModelPrice, ProviderDefinition, ProviderOptions } from './types.js';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';

// Anthropic list prices (docs.claude.com/en/docs/about-claude/pricing), USD per million tokens.
// Cache writes (5-minute) cost 1.25x input, cache reads 0.1x.
const price = (input: number, output: number, longContext?: ModelPrice['longContext']): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheWritePerMTok: input * 1.25,
  cacheReadPerMTok: input * 0.1,
  ...(longContext ? { longContext } : {}),
});

const ANTHROPIC_PRICES: [string, ModelPrice][] = [
  ['claude-opus-4-5', price(5, 25)],
  ['claude-opus-4-1', price(15, 75)],
  ['claude-opus-4', price(15, 75)],
  ['claude-sonnet-4-5', price(3, 15, { threshold: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 })],
  ['claude-sonnet-4', price(3, 15, { threshold: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 })],
  ['claude-3-7-sonnet', price(3, 15)],
  ['claude-haiku-4-5', price(1, 5)],
  ['claude-3-5-haiku', price(0.8, 4)],
  ['claude-3-haiku', price(0.25, 1.25)],
];

/** Claude through @anthropic-ai/sdk (loaded on use). */
export const anthropicProvider: ProviderDefinition = {
  id: 'anthropic',
  label: 'Anthropic Claude (ANTHROPIC_API_KEY)',
  apiKeyEnv: ['ANTHROPIC_API_KEY'],
  endpoint: { name: 'baseUrl', describe: 'an Anthropic endpoint URL', env: 'ANTHROPIC_BASE_URL' },
  defaultModel: DEFAULT_ANTHROPIC_MODEL,
  // Claude Code's aliases, natively.
  modelAliases: { opus: 'claude-opus-4-5', sonnet: 'claude-sonnet-4-5', haiku: 'claude-haiku-4-5', fable: 'claude-sonnet-4-5' },
  prices: ANTHROPIC_PRICES,
  contextWindows: [['claude-', 200_000]],
  // Streaming allows long answers; these stay under each model's own limit.
  maxOutputTokens: (model) => (/^claude-(opus|sonnet|haiku)-4|^claude-3-7/.test(model) ? 32_000 : 8_192),
  hints: {
    name: 'Anthropic',
    auth: 'Anthropic rejected the API key ({http}){said}. Check ANTHROPIC_API_KEY; you can create a key at https://console.anthropic.com/settings/keys.',
    unreachable: 'Cannot reach Anthropic at {host} ({detail}). Check your network connection, or ANTHROPIC_BASE_URL if you set it.',
    missingKey: 'No Anthropic API key found. Set ANTHROPIC_API_KEY to a key from https://console.anthropic.com/settings/keys, or choose another provider with --provider.',
  },
  isConfigured: (env) => apiKeyFrom({ apiKeyEnv: ['ANTHROPIC_API_KEY'] }, env) !== undefined,
  async create(options: ProviderOptions): Promise<LLMClient> {
    const { createAnthropicClient } = await import('./anthropic-client.js');
    return createAnthropicClient(options);
  },
};
