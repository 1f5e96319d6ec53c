import type { Usage } from './types.js';

/** USD per million tokens. Thinking tokens are billed as output. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Higher prices that apply to the whole request when the prompt exceeds `threshold` tokens. */
  longContext?: { threshold: number; inputPerMTok: number; outputPerMTok: number };
}

// Gemini API paid-tier list prices for text (ai.google.dev/gemini-api/docs/pricing). Matched by
// longest prefix, so dated variants (gemini-2.5-flash-preview-09-2025, -001) share their family's price.
const GEMINI_PRICES: [prefix: string, price: ModelPrice][] = [
  ['gemini-3-pro', { inputPerMTok: 2, outputPerMTok: 12, longContext: { threshold: 200_000, inputPerMTok: 4, outputPerMTok: 18 } }],
  ['gemini-3-flash', { inputPerMTok: 0.5, outputPerMTok: 3 }],
  ['gemini-2.5-pro', { inputPerMTok: 1.25, outputPerMTok: 10, longContext: { threshold: 200_000, inputPerMTok: 2.5, outputPerMTok: 15 } }],
  ['gemini-2.5-flash-lite', { inputPerMTok: 0.1, outputPerMTok: 0.4 }],
  ['gemini-2.5-flash', { inputPerMTok: 0.3, outputPerMTok: 2.5 }],
  ['gemini-2.0-flash-lite', { inputPerMTok: 0.075, outputPerMTok: 0.3 }],
  ['gemini-2.0-flash', { inputPerMTok: 0.1, outputPerMTok: 0.4 }],
];

// Variants priced differently from their family's text price (image/audio output, embeddings).
const GEMINI_UNPRICED = /-(image|tts|live|native-audio|audio|embedding)|^gemini-embedding|-computer-use/;

const FREE: ModelPrice = { inputPerMTok: 0, outputPerMTok: 0 };

/** The price of a model, or undefined when unknown (cost is then not reported rather than guessed). */
export function priceForModel(provider: string, model: string): ModelPrice | undefined {
  if (provider === 'ollama') return FREE; // local models
  if (provider !== 'gemini') return undefined;
  const name = model.replace(/^models\//, '').toLowerCase();
  if (GEMINI_UNPRICED.test(name)) return undefined;
  let best: [string, ModelPrice] | undefined;
  for (const entry of GEMINI_PRICES) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

export function costUsd(provider: string, model: string, usage: Pick<Usage, 'inputTokens' | 'outputTokens'>): number | undefined {
  const price = priceForModel(provider, model);
  if (!price) return undefined;
  const tier = price.longContext && usage.inputTokens > price.longContext.threshold ? price.longContext : price;
  return (usage.inputTokens * tier.inputPerMTok + usage.outputTokens * tier.outputPerMTok) / 1_000_000;
}
