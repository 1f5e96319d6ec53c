import * as z from 'zod';
import { lazily } from '../lazily.js';

export const GUARDRAIL_BUILTINS = ['secrets', 'email', 'phone'] as const;
export const GUARDRAIL_ACTIONS = ['block', 'redact', 'warn'] as const;

const ruleSchema = lazily(() =>
  z
    .object({
      // Its syntax is RE2's, checked when the rules are compiled (guardrails.ts): RE2 loads only then.
      pattern: z.string().min(1).describe('a regular expression (RE2 syntax), or leave it out and name a "builtin" (exactly one of the two)').optional(),
      builtin: z.enum(GUARDRAIL_BUILTINS).describe('"secrets", "email" or "phone"').optional(),
      action: z.enum(GUARDRAIL_ACTIONS).describe('"block", "redact" or "warn"'),
      message: z.string().describe('a message for the user').optional(),
      name: z.string().describe('a name for the rule').optional(),
    })
    // Reported at `pattern`, whose description says what is expected.
    .refine((rule) => (rule.pattern === undefined) !== (rule.builtin === undefined), { message: 'exactly one of "pattern" or "builtin"', path: ['pattern'] })
    .describe('a rule {"pattern": "regex"} or {"builtin": "secrets"|"email"|"phone"} with "action": "block"|"redact"|"warn"'),
);

/** `guardrails` in settings and agent frontmatter: rules for the user's prompt and for the final answer. */
export const guardrailsSchema = lazily(() => {
  const rules = z.array(ruleSchema()).describe('a list of guardrail rules');
  return z.object({ input: rules, output: rules }).partial().describe('an object {"input": [rules], "output": [rules]}');
});

export type GuardrailRule = z.infer<ReturnType<typeof ruleSchema>>;
export type GuardrailsSettings = z.infer<ReturnType<typeof guardrailsSchema>>;
