import type { RE2JS } from 're2js';
import { ConfigError } from '../errors.js';
import { loadRe2 } from '../re2.js';
import type { Detector } from './builtins.js';

/**
 * A `pattern` rule's detector. Patterns come from settings and from agent files a cloned repository
 * may ship, and every prompt and answer is tested against them, so they run on RE2: a pattern like
 * `(a+)+$` cannot stall the session. `where` names the rule in the error when RE2 cannot compile it.
 */
export async function patternDetector(pattern: string, label: string, where: string): Promise<Detector> {
  const re2 = await loadRe2();
  let regex: RE2JS;
  try {
    regex = re2.compile(pattern);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new ConfigError(
      `The guardrail pattern /${pattern}/ (${where}) is not valid RE2 syntax: ${reason}. Guardrail patterns run on RE2, which has no lookahead, lookbehind or backreferences; rewrite the pattern without them.`,
    );
  }
  return {
    label,
    find: (text) => {
      const ranges: [number, number][] = [];
      for (const match of regex.matchAll(text)) if (match[0] !== '') ranges.push([match.index!, match.index! + match[0].length]);
      return ranges;
    },
  };
}
