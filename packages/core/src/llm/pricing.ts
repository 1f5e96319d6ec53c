import { providerDefinition } from './builtin-providers.js';
import { longestPrefix } from './provider-info.js';
import type { ModelPrice, Usage } from './types.js';

export type { ModelPrice };

const FREE: ModelPrice = { inputPerMTok: 0, outputPerMTok: 0 };

/** The price of a model, from its provider's definition; undefined when unknown (cost is then not reported rather than guessed). */
export function priceForModel(provider: string, model: string): ModelPrice | undefined {
  const definition = providerDefinition(provider);
  if (!definition?.prices) return undefined;
  if (definition.prices === 'free') return FREE;
  const name = model.replace(/^models\//, '').toLowerCase();
  if (definition.unpriced?.test(name)) return undefined;
  return longestPrefix(definition.prices, name);
}

type CostUsage = Pick<Usage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>;

export function costUsd(provider: string, model: string, usage: CostUsage): number | undefined {
  const price = priceForModel(provider, model);
  if (!price) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const prompt = usage.inputTokens + cacheRead + cacheWrite;
  const tier = price.longContext && prompt > price.longContext.threshold ? price.longContext : price;
  // Cache prices scale with the tier's input price (Anthropic: reads 0.1x, writes 1.25x).
  const scale = tier.inputPerMTok / (price.inputPerMTok || 1);
  const readPrice = (price.cacheReadPerMTok ?? price.inputPerMTok) * (price.inputPerMTok ? scale : 1);
  const writePrice = (price.cacheWritePerMTok ?? price.inputPerMTok) * (price.inputPerMTok ? scale : 1);
  return (usage.inputTokens * tier.inputPerMTok + cacheRead * readPrice + cacheWrite * writePrice + usage.outputTokens * tier.outputPerMTok) / 1_000_000;
}
