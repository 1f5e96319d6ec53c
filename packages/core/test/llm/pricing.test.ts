import { describe, expect, it } from 'vitest';
import { costUsd, priceForModel } from '../../src/llm/pricing.js';

describe('pricing', () => {
  it('prices Gemini models per million tokens, dated variants included', () => {
    expect(costUsd('gemini', 'gemini-2.5-flash', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBeCloseTo(2.8);
    expect(costUsd('gemini', 'models/gemini-2.5-flash-preview-09-2025', { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(0.3);
    expect(costUsd('gemini', 'gemini-2.0-flash-001', { inputTokens: 0, outputTokens: 1_000_000 })).toBeCloseTo(0.4);
  });

  it('does not price flash-lite as flash', () => {
    expect(priceForModel('gemini', 'gemini-2.5-flash-lite')).toEqual({ inputPerMTok: 0.1, outputPerMTok: 0.4, cacheReadPerMTok: 0.01 });
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

  it('prices Claude models with cache reads and writes, and Haiku 5.5 prompts over 100k at the higher band', () => {
    // claude-opus-5-5: $4 input, $20 output, $5 cache write, $0.20 cache read
    expect(costUsd('anthropic', 'claude-opus-5-5', { inputTokens: 1e6, outputTokens: 1e6, cacheReadTokens: 1e6, cacheWriteTokens: 1e6 })).toBeCloseTo(
      4 + 20 + 5 + 0.2,
      10,
    );
    expect(costUsd('anthropic', 'claude-opus-5-20260724', { inputTokens: 1e6, outputTokens: 0 })).toBeCloseTo(5, 10);
    expect(costUsd('anthropic', 'claude-haiku-5-5', { inputTokens: 50_000, outputTokens: 0 })).toBeCloseTo(0.005, 10);
    // 60k fresh + 60k cached = a 120k prompt: every token at the higher band (cache read scaled alike).
    expect(costUsd('anthropic', 'claude-haiku-5-5', { inputTokens: 60_000, outputTokens: 0, cacheReadTokens: 60_000 })).toBeCloseTo(
      0.06 * 0.5 + 0.06 * 0.05,
      10,
    );
    expect(costUsd('anthropic', 'claude-fable-5-2', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
  });

  it('prices OpenAI models with cached input, and not audio or realtime variants', () => {
    expect(costUsd('openai', 'gpt-5-mini', { inputTokens: 1e6, outputTokens: 1e6, cacheReadTokens: 1e6 })).toBeCloseTo(0.25 + 2 + 0.025, 10);
    expect(costUsd('openai', 'gpt-4o-mini-2024-07-18', { inputTokens: 1e6, outputTokens: 0 })).toBeCloseTo(0.15, 10);
    expect(costUsd('openai', 'gpt-4o-realtime-preview', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
    // gpt-6.1-terra over 272k input tokens: $2 input, $0.10 cached, $7.50 output
    expect(costUsd('openai', 'gpt-6.1-terra', { inputTokens: 200_000, outputTokens: 1e6, cacheReadTokens: 100_000 })).toBeCloseTo(0.4 + 0.01 + 7.5, 10);
    expect(costUsd('openai', 'gpt-6.2-terra', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
    expect(costUsd('openai', 'gpt-5.5', { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
    expect(costUsd('openai', 'gpt-5.6-terra', { inputTokens: 100_000, outputTokens: 0 })).toBeCloseTo(0.2, 10);
  });
});
