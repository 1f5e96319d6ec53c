import { describe, expect, it } from 'vitest';
import { costUsd, priceForModel } from '../../src/llm/pricing.js';

describe('pricing', () => {
  it('prices Gemini models per million tokens, dated variants included', () => {
    expect(costUsd('gemini', 'gemini-2.5-flash', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBeCloseTo(2.8);
    expect(costUsd('gemini', 'models/gemini-2.5-flash-preview-09-2025', { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(0.3);
    expect(costUsd('gemini', 'gemini-2.0-flash-001', { inputTokens: 0, outputTokens: 1_000_000 })).toBeCloseTo(0.4);
  });

  it('does not price flash-lite as flash', () => {
    expect(priceForModel('gemini', 'gemini-2.5-flash-lite')).toEqual({ inputPerMTok: 0.1, outputPerMTok: 0.4 });
  });

  it('applies the long-context price of Pro models to prompts over 200k tokens', () => {
    expect(costUsd('gemini', 'gemini-2.5-pro', { inputTokens: 100_000, outputTokens: 0 })).toBeCloseTo(0.125);
    expect(costUsd('gemini', 'gemini-2.5-pro', { inputTokens: 300_000, outputTokens: 0 })).toBeCloseTo(0.75);
  });

  it('reports no cost rather than a wrong one for unknown or differently billed models', () => {
    expect(costUsd('gemini', 'gemini-experimental-0000', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
    expect(costUsd('gemini', 'gemini-2.5-flash-image-preview', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
    expect(costUsd('someone-else', 'gpt-x', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
  });

  it('counts local Ollama models as free', () => {
    expect(costUsd('ollama', 'qwen3:8b', { inputTokens: 5_000, outputTokens: 5_000 })).toBe(0);
  });
});
