/** A guardrail's detector: `block` and `warn` act when it finds something, `redact` replaces what it finds. */
export interface Detector {
  label: string;
  /** Every match as a [start, end) range, in any order, overlaps allowed. */
  find: (text: string) => [number, number][];
}

/**
 * A detector of global JavaScript regexes, plus an optional check on a match. A regex with a `value`
 * group (and the `d` flag) matches that group only: the text before it is context, as in a
 * lookbehind, without a lookbehind's cost.
 *
 * These regexes judge text a repository wrote (a file a tool read), and JavaScript's engine
 * backtracks: each must stay linear in the text. A match may start only where the previous
 * character could not belong to it, so one long run of such characters is scanned from one start,
 * not from each of its positions (which is quadratic: 100 kB of spaces took 11 s with a lookbehind
 * `\s+`). Test new ones in test/guardrails/redos.test.ts.
 */
function regexDetector(label: string, patterns: RegExp[], accept?: (match: string) => boolean): Detector {
  return {
    label,
    find: (text) => {
      const ranges: [number, number][] = [];
      for (const pattern of patterns) {
        for (const match of text.matchAll(pattern)) {
          const [start, end] = match.indices?.groups?.value ?? [match.index, match.index + match[0].length];
          if (end > start && (!accept || accept(text.slice(start, end)))) ranges.push([start, end]);
        }
      }
      return ranges;
    },
  };
}

// Key formats that vendors publish (prefix + length), then generic `name = value` assignments whose
// name says secret. The value alone is replaced so the text around it still reads. A PEM key's body
// stops at the next BEGIN line, so each BEGIN scans only up to the next.
const SECRETS = regexDetector('secret', [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----(?:(?!-----BEGIN )[\s\S])*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /(?<![\w-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  /\bBearer\s+(?<value>[A-Za-z0-9._~+/-]{20,}=*)/dg,
  /\b[A-Za-z0-9_]*(?:api[_-]?key|secret|token|password|passwd|credentials?)["']?\s*[:=]\s*["']?(?<value>[^\s"',;]{8,})/dgi,
]);

const EMAIL = regexDetector('email', [/(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g]);

// Phone numbers: an optional +country code, an optional (area) part, then groups of digits split by
// spaces, dashes or dots. Kept only with 9 to 15 digits (E.164's range) and not dots alone, so
// version numbers, dates and amounts like 10.000.000 are left alone.
const PHONE = regexDetector('phone', [/(?<![\w+.])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w.])/g], (match) => {
  const digits = match.replace(/\D/g, '').length;
  if (digits < 9 || digits > 15) return false;
  const separators = match.replace(/[\d+()]/g, '');
  return match.startsWith('+') || match.includes('(') || !/^\.+$/.test(separators);
});

export const BUILTIN_DETECTORS = { secrets: SECRETS, email: EMAIL, phone: PHONE } as const;

/** Every match of a detector, as [start, end) ranges without overlaps. */
export function findMatches(detector: Detector, text: string): [number, number][] {
  const ranges = detector.find(text).sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([...range]);
  }
  return merged;
}

export function replaceRanges(text: string, ranges: [number, number][], replacement: string): string {
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + replacement;
    at = end;
  }
  return out + text.slice(at);
}
