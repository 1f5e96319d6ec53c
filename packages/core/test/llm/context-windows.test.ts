import { describe, expect, it } from 'vitest';
import { BUILTIN_PROVIDERS, mapModelAlias, modelLimits } from '../../src/llm/index.js';

// `/context` and auto-compaction need the window of the model in use (issue 59 item 6): every model a
// built-in provider names (its default, its aliases' targets, every priced model) has one in the table.
describe('context windows of the built-in models', () => {
  for (const definition of BUILTIN_PROVIDERS.filter((provider) => Array.isArray(provider.prices))) {
    const priced = (definition.prices as readonly (readonly [string, unknown])[]).map(([model]) => model);
    const models = [...new Set([definition.defaultModel, ...Object.values(definition.modelAliases ?? {}), ...priced].filter(Boolean))] as string[];
    it(`${definition.id}: ${models.length} models, each with a window`, () => {
      expect(models.filter((model) => !modelLimits(definition.id, model).contextWindow)).toEqual([]);
    });
  }

  it('an alias names a model with a window (sonnet on Anthropic: 1M)', () => {
    expect(modelLimits('anthropic', mapModelAlias('anthropic', 'sonnet')).contextWindow).toBe(1_000_000);
    expect(modelLimits('gemini', mapModelAlias('gemini', 'flash')).contextWindow).toBe(1_048_576);
  });
});
