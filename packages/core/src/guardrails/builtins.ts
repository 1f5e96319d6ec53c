/**
 * The built-in detectors. Each is a list of global regexes plus an optional check on a match, so the
 * same detector both finds (block, warn) and replaces (redact).
 */
export interface Detector {
  label: string;
  patterns: RegExp[];
  accept?: (match: string) => boolean;
}

// Key formats that vendors publish (prefix + length), then generic `name = value` assignments whose
// name says secret. The value alone is replaced so the text around it still reads.
const SECRETS: Detector = {
  label: 'secret',
  patterns: [
    /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
    /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
    /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g,
    /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
    /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
    /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g,
    /\bAIza[0-9A-Za-z_-]{35}\b/g,
    /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
    /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
    /\bnpm_[A-Za-z0-9]{36}\b/g,
    /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
    /(?<=\bBearer\s+)[A-Za-z0-9._~+/-]{20,}=*/g,
    /(?<=\b[A-Za-z0-9_]*(?:api[_-]?key|secret|token|password|passwd|credentials?)["']?\s*[:=]\s*["']?)[^\s"',;]{8,}/gi,
  ],
};

const EMAIL: Detector = {
  label: 'email',
  patterns: [/\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g],
};

// Phone numbers: an optional +country code, an optional (area) part, then groups of digits split by
// spaces, dashes or dots. Kept only with 9 to 15 digits (E.164's range) and not dots alone, so
// version numbers, dates and amounts like 10.000.000 are left alone.
const PHONE: Detector = {
  label: 'phone',
  patterns: [/(?<![\w+.])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w.])/g],
  accept: (match) => {
    const digits = match.replace(/\D/g, '').length;
    if (digits < 9 || digits > 15) return false;
    const separators = match.replace(/[\d+()]/g, '');
    return match.startsWith('+') || match.includes('(') || !/^\.+$/.test(separators);
  },
};

export const BUILTIN_DETECTORS = { secrets: SECRETS, email: EMAIL, phone: PHONE } as const;

/** Every match of a detector, as [start, end) ranges without overlaps. */
export function findMatches(detector: Detector, text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const pattern of detector.patterns) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      if (match[0] === '' || (detector.accept && !detector.accept(match[0]))) continue;
      ranges.push([match.index, match.index + match[0].length]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
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
