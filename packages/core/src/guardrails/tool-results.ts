import type { AfterToolCall } from '../agent/tool-hooks.js';
import { redactSecrets, type Guardrails } from './guardrails.js';

/**
 * With a `secrets` guardrail, every tool result's text has its API keys and tokens replaced before
 * the model reads it (and before it is saved). Image parts pass unchanged.
 */
export function guardrailToolHook(guardrails: Guardrails): AfterToolCall | undefined {
  if (!guardrails.redactsToolResults) return undefined;
  return async ({ result }) => {
    if (typeof result.content === 'string') {
      const { text, count } = redactSecrets(result.content);
      return count ? { ...result, content: text } : undefined;
    }
    let changed = false;
    const content = result.content.map((part) => {
      if (part.type !== 'text') return part;
      const { text, count } = redactSecrets(part.text);
      if (!count) return part;
      changed = true;
      return { ...part, text };
    });
    return changed ? { ...result, content } : undefined;
  };
}
