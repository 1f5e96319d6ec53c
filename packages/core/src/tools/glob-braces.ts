import { ToolInputError } from '../errors.js';

/**
 * fast-glob expands brace sets into one pattern per combination before walking, so twenty `{a,b}`
 * make a million patterns and end the process with a V8 out-of-memory (issue 43 item 7). Far fewer
 * than this already cover any real search; more is refused as the model's mistake to fix.
 */
export const MAX_BRACE_EXPANSIONS = 1024;

/** Throws a ToolInputError when expanding `pattern`'s brace sets and ranges would give too many patterns. */
export function assertBraceExpansionBounded(pattern: string): void {
  const count = countBraceExpansions(pattern);
  if (count > MAX_BRACE_EXPANSIONS) {
    const shown = Number.isFinite(count) && count < 1e15 ? count.toLocaleString('en-US') : 'too many';
    throw new ToolInputError(
      `The pattern's brace sets expand to ${shown} patterns (limit ${MAX_BRACE_EXPANSIONS.toLocaleString('en-US')}). Use fewer {a,b} sets or ranges, a wider pattern such as "**/*.ts", or several glob calls.`,
    );
  }
}

/**
 * How many patterns brace expansion makes of `pattern`: a sequence multiplies, a set `{x,y}` adds
 * its alternatives, a range `{1..100}` or `{a..z}` (with an optional step) counts its members, and
 * a brace without a comma or range, or escaped with `\`, is a literal. Counts only: nothing is built.
 */
export function countBraceExpansions(pattern: string): number {
  let pos = 0;

  // A sequence up to (not including) one of `stops` at this depth; returns its number of expansions.
  const sequence = (stops: string): number => {
    let count = 1;
    while (pos < pattern.length && !stops.includes(pattern[pos])) {
      const char = pattern[pos];
      if (char === '\\') {
        pos += 2;
      } else if (char === '{') {
        count *= group();
      } else {
        pos += 1;
      }
    }
    return count;
  };

  // At a `{`: the set's total, or 1 when it turns out to be a literal brace.
  const group = (): number => {
    const open = pos;
    pos += 1;
    let total = 0;
    let alternatives = 0;
    for (;;) {
      total += sequence(',}');
      alternatives += 1;
      if (pos >= pattern.length) {
        pos = open + 1; // never closed: a literal `{`, and what follows is read again as plain text
        return 1;
      }
      if (pattern[pos] === '}') break;
      pos += 1; // a comma
    }
    const body = pattern.slice(open + 1, pos);
    pos += 1;
    if (alternatives > 1) return total;
    return rangeSize(body) ?? total;
  };

  return sequence('');
}

/** Members of `a..b[..step]` (numbers, or single letters), or undefined when `body` is no range. */
function rangeSize(body: string): number | undefined {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  const match = numeric ?? letters;
  if (!match) return undefined;
  const [from, to] = numeric ? [Number(match[1]), Number(match[2])] : [match[1].charCodeAt(0), match[2].charCodeAt(0)];
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  return Math.floor(Math.abs(to - from) / step) + 1;
}
