import { ConfigError } from '../errors.js';
import { describeIssues } from '../config/validate.js';
import { BUILTIN_DETECTORS, findMatches, replaceRanges, type Detector } from './builtins.js';
import { patternDetector } from './pattern.js';
import { guardrailsSchema, type GuardrailRule, type GuardrailsSettings } from './schema.js';
import { PARSE_ONCE } from '../parse-once.js';
import type { GuardrailFunctions } from './function-guardrails.js';

/** Rules ready to run; build once per session with `compileGuardrails`. */
export interface Guardrails {
  input: CompiledRule[];
  output: CompiledRule[];
  /** True when a `secrets` builtin is configured: tool results are redacted before the model reads them. */
  redactsToolResults: boolean;
  /** A program's guardrail functions (`inputGuardrails` / `outputGuardrails`), run after the rules pass. */
  functions?: GuardrailFunctions;
}

export interface CompiledRule {
  /** `name`, else `builtin secrets` or `pattern /.../`: how the user is told which rule fired. */
  name: string;
  action: GuardrailRule['action'];
  message?: string;
  detector: Detector;
}

export interface GuardrailVerdict {
  /** The text after `redact` rules (unchanged when nothing was redacted). */
  text: string;
  /** The first `block` rule that matched: the prompt or answer must not go on. */
  blocked?: { rule: string; message: string };
  /** One line per `warn` rule that matched, for the user. */
  warnings: string[];
  /** Names of the rules that redacted something. */
  redacted: string[];
}

/** Rules and where they were written (a settings file, an agent file), for errors. */
export interface GuardrailSource {
  rules: GuardrailsSettings | undefined;
  where: string;
}

/**
 * Settings and agent frontmatter rules, in that order (both apply). Throws ConfigError naming the rule
 * when RE2 cannot compile a pattern.
 */
export async function compileGuardrails(...sources: GuardrailSource[]): Promise<Guardrails> {
  const compile = (list: 'input' | 'output') =>
    Promise.all(
      sources.flatMap(({ rules, where }) => (rules?.[list] ?? []).map((rule, index) => compileRule(rule, `guardrails.${list}[${index}] in ${where}`))),
    );
  const [input, output] = await Promise.all([compile('input'), compile('output')]);
  return { input, output, redactsToolResults: [...input, ...output].some((rule) => rule.detector === BUILTIN_DETECTORS.secrets) };
}

/**
 * An agent's `guardrails:` frontmatter, checked like settings. `where` names the file in the error.
 * Throws ConfigError with the key and what was expected.
 */
export function parseGuardrails(value: unknown, where: string): GuardrailsSettings {
  const result = guardrailsSchema().safeParse(value, PARSE_ONCE);
  if (result.success) return result.data;
  const problems = describeIssues(
    result.error.issues.map((issue) => ({ ...issue, path: ['guardrails', ...issue.path] })),
    { guardrails: value },
  );
  throw new ConfigError(`Invalid guardrails in ${where}: ${problems.slice(0, 3).join('; ')}. Fix the rules or remove them.`);
}

/** Input rules on the user's prompt, before the model sees it. */
export function checkInput(guardrails: Guardrails, text: string): GuardrailVerdict {
  return check(guardrails.input, text, 'prompt');
}

/** Output rules on the final answer, before it is printed and saved. */
export function checkOutput(guardrails: Guardrails, text: string): GuardrailVerdict {
  return check(guardrails.output, text, 'answer');
}

/** API keys, tokens and private keys in a tool result, replaced before the model reads it. */
export function redactSecrets(text: string): { text: string; count: number } {
  const ranges = findMatches(BUILTIN_DETECTORS.secrets, text);
  return { text: ranges.length ? replaceRanges(text, ranges, '[REDACTED:secret]') : text, count: ranges.length };
}

function check(rules: CompiledRule[], original: string, what: 'prompt' | 'answer'): GuardrailVerdict {
  let text = original;
  const warnings: string[] = [];
  const redacted: string[] = [];
  let blocked: GuardrailVerdict['blocked'];
  for (const rule of rules) {
    const ranges = findMatches(rule.detector, text);
    if (ranges.length === 0) continue;
    if (rule.action === 'block') {
      blocked ??= { rule: rule.name, message: rule.message ?? `The ${what} was blocked by the guardrail ${rule.name}.` };
    } else if (rule.action === 'redact') {
      text = replaceRanges(text, ranges, `[REDACTED:${rule.detector.label}]`);
      redacted.push(rule.name);
    } else {
      warnings.push(rule.message ?? `The ${what} matched the guardrail ${rule.name}.`);
    }
  }
  return { text, warnings, redacted, ...(blocked ? { blocked } : {}) };
}

async function compileRule(rule: GuardrailRule, where: string): Promise<CompiledRule> {
  const name = rule.name ?? (rule.builtin ? `builtin ${rule.builtin}` : `pattern /${rule.pattern}/`);
  // The schema holds exactly one of `builtin` and `pattern`.
  const detector = rule.builtin
    ? BUILTIN_DETECTORS[rule.builtin]
    : await patternDetector(rule.pattern!, rule.name ?? 'pattern', rule.name ? `"${rule.name}", ${where}` : where);
  return { name, action: rule.action, ...(rule.message ? { message: rule.message } : {}), detector };
}
