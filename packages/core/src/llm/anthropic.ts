import { apiKeyFrom } from './provider-info.js';
import type { ModelPrice, ProviderDefinition } from './types.js';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';

// Anthropic list prices (platform.claude.com/docs/en/about-claude/pricing, November 2026), USD per
// million tokens: base input, output, 5-minute cache write, cache read.
const price = (input: number, output: number, cacheWrite: number, cacheRead: number, longContext?: ModelPrice['longContext']): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheWritePerMTok: cacheWrite,
  cacheReadPerMTok: cacheRead,
  ...(longContext ? { longContext } : {}),
});

const ANTHROPIC_PRICES: [string, ModelPrice][] = [
  ['claude-fable-5-1', price(10, 50, 12.5, 0.25)],
  ['claude-fable-5', price(10, 50, 12.5, 1)],
  ['claude-mythos-5-1', price(10, 50, 12.5, 0.25)],
  ['claude-mythos-5', price(10, 50, 12.5, 1)],
  ['claude-opus-5-5', price(4, 20, 5, 0.2)],
  ['claude-opus-5', price(5, 25, 6.25, 0.5)],
  ['claude-opus-4-8', price(5, 25, 6.25, 0.5)],
  ['claude-opus-4-7', price(5, 25, 6.25, 0.5)],
  ['claude-opus-4-6', price(5, 25, 6.25, 0.5)],
  ['claude-opus-4-5', price(5, 25, 6.25, 0.5)],
  ['claude-opus-4-1', price(15, 75, 18.75, 1.5)],
  ['claude-opus-4', price(15, 75, 18.75, 1.5)],
  ['claude-sonnet-5-5', price(2, 10, 2.5, 0.1)],
  ['claude-sonnet-5', price(2, 10, 2.5, 0.2)],
  ['claude-sonnet-4-6', price(3, 15, 3.75, 0.3)],
  ['claude-sonnet-4-5', price(3, 15, 3.75, 0.3, { threshold: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 })],
  ['claude-sonnet-4', price(3, 15, 3.75, 0.3, { threshold: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 })],
  // Haiku 5.5 bills prompts over 100k tokens (cache included) at five times the rate.
  ['claude-haiku-5-5', price(0.1, 0.5, 0.125, 0.01, { threshold: 100_000, inputPerMTok: 0.5, outputPerMTok: 2.5 })],
  ['claude-haiku-4-5', price(1, 5, 1.25, 0.1)],
  ['claude-3-5-haiku', price(0.8, 4, 1, 0.08)],
  ['claude-3-haiku', price(0.25, 1.25, 0.3, 0.03)],
];

/** Claude through @anthropic-ai/sdk (loaded on use). */
export const anthropicProvider: ProviderDefinition = {
  id: 'anthropic',
  label: 'Anthropic Claude (ANTHROPIC_API_KEY)',
  apiKeyEnv: ['ANTHROPIC_API_KEY'],
  endpoint: { name: 'baseUrl', describe: 'an Anthropic endpoint URL', env: 'ANTHROPIC_BASE_URL' },
  defaultModel: DEFAULT_ANTHROPIC_MODEL,
  // Claude Code's aliases, natively.
  modelAliases: { opus: 'claude-opus-5-5', sonnet: 'claude-sonnet-5-5', haiku: 'claude-haiku-5-5', fable: 'claude-fable-5-1' },
  prices: ANTHROPIC_PRICES,
  // Newer versions of a family than this table knows (e.g. claude-fable-5-2) are not priced as the older one.
  unpriced: /^claude-(fable|mythos)-5-[2-9]|^claude-(opus|sonnet|haiku)-5-[6-9]/,
  contextWindows: [
    ['claude-', 200_000],
    ['claude-fable-5', 1_000_000],
    ['claude-mythos-5', 1_000_000],
    ['claude-opus-5', 1_000_000],
    ['claude-sonnet-5', 1_000_000],
    ['claude-haiku-5', 1_000_000],
  ],
  // Streaming allows long answers; these stay well under each generation's own limit (128k for 5.x, 64k for 4.5+).
  maxOutputTokens: (model) => (/^claude-[a-z]+-5/.test(model) ? 64_000 : /^claude-(opus|sonnet|haiku)-4|^claude-3-7/.test(model) ? 32_000 : 8_192),
  hints: {
    name: 'Anthropic',
    auth: 'Anthropic rejected the API key ({http}){said}. Check ANTHROPIC_API_KEY; you can create a key at https://console.anthropic.com/settings/keys.',
    unreachable: 'Cannot reach Anthropic at {host} ({detail}). Check your network connection, or ANTHROPIC_BASE_URL if you set it.',
    missingKey:
      'No Anthropic API key found. Set ANTHROPIC_API_KEY to a key from https://console.anthropic.com/settings/keys, or choose another provider with --provider.',
  },
  isConfigured: (env) => apiKeyFrom({ apiKeyEnv: ['ANTHROPIC_API_KEY'] }, env) !== undefined,
  client: 'anthropic',
};
