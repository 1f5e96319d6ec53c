/**
 * How much the model may think before it answers (the `thinking` setting, `--max-thinking-tokens`):
 * off, a level, or a token budget. Each client turns it into its provider's own control.
 */
export type Thinking = 'off' | 'low' | 'medium' | 'high' | number;

/** Token budgets for the levels (Anthropic's minimum budget is 1,024). */
const BUDGETS = { low: 2_048, medium: 8_192, high: 24_576 } as const;

/** The budget in tokens; 0 for off. */
export function thinkingBudget(thinking: Thinking): number {
  if (thinking === 'off') return 0;
  return typeof thinking === 'number' ? Math.max(0, Math.floor(thinking)) : BUDGETS[thinking];
}

/** A budget as a level, for providers that take an effort (OpenAI's reasoning_effort). */
export function thinkingLevel(thinking: Thinking): 'off' | 'low' | 'medium' | 'high' {
  if (typeof thinking !== 'number') return thinking;
  if (thinking <= 0) return 'off';
  if (thinking <= BUDGETS.low) return 'low';
  if (thinking <= BUDGETS.medium) return 'medium';
  return 'high';
}

/** Anthropic: extended thinking with a budget (at least 1,024), and room for the answer after it. */
export function anthropicThinking(
  thinking: Thinking | undefined,
  maxTokens: number,
): { thinking?: { type: 'enabled'; budget_tokens: number }; max_tokens: number } {
  const budget = thinking === undefined ? 0 : thinkingBudget(thinking);
  if (budget <= 0) return { max_tokens: maxTokens };
  const budgetTokens = Math.max(1_024, budget);
  return { thinking: { type: 'enabled', budget_tokens: budgetTokens }, max_tokens: Math.max(maxTokens, budgetTokens + 4_096) };
}

/** OpenAI: reasoning_effort; off asks for the least (`minimal`) reasoning models allow. */
export function openAiReasoningEffort(thinking: Thinking | undefined): { reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high' } {
  if (thinking === undefined) return {};
  const level = thinkingLevel(thinking);
  return { reasoning_effort: level === 'off' ? 'minimal' : level };
}

/** Gemini: thinkingConfig.thinkingBudget (0 turns thinking off on models that allow it). */
export function geminiThinkingConfig(thinking: Thinking | undefined): { thinkingConfig?: { thinkingBudget: number } } {
  return thinking === undefined ? {} : { thinkingConfig: { thinkingBudget: thinkingBudget(thinking) } };
}

/** Ollama: `think` on or off. */
export function ollamaThink(thinking: Thinking | undefined): { think?: boolean } {
  return thinking === undefined ? {} : { think: thinkingBudget(thinking) > 0 };
}

/** The `thinking` setting's text (`off`, `low`, `medium`, `high` or a budget such as `8000`); 0 is off. */
export function parseThinking(text: string | undefined): Thinking | undefined {
  const value = text?.trim().toLowerCase();
  if (!value) return undefined;
  if (value === 'off' || value === 'low' || value === 'medium' || value === 'high') return value;
  const budget = Number(value);
  if (!Number.isInteger(budget) || budget < 0) return undefined;
  return budget === 0 ? 'off' : budget;
}
