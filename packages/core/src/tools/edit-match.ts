import { numberLines, splitLines } from './text.js';

export type EditPlan =
  | {
      ok: true;
      content: string;
      replacements: number;
      /** 1-based line in the new content where the first replacement starts. */
      firstLine: number;
    }
  | { ok: false; message: string };

/**
 * Plans an exact-text replacement. An LF old_string also matches a CRLF file (the replacement then
 * gets CRLF too), so models never have to type carriage returns. Failures explain how to fix the call.
 */
export function planEdit(content: string, oldString: string, newString: string, replaceAll: boolean, displayPath: string): EditPlan {
  if (oldString === newString)
    return { ok: false, message: 'old_string and new_string are identical, so nothing would change. Pass the text as it should be in new_string.' };
  let search = oldString;
  let replacement = newString;
  let positions = findAll(content, search);
  if (positions.length === 0 && content.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r\n')) {
    search = toCrlf(oldString);
    replacement = toCrlf(newString);
    positions = findAll(content, search);
  }
  if (positions.length === 0) return { ok: false, message: noMatchMessage(content, oldString, displayPath) };
  if (positions.length > 1 && !replaceAll) {
    const lines = positions.map((at) => lineAt(content, at));
    return {
      ok: false,
      message:
        `old_string matches ${positions.length} places in ${displayPath} (lines ${formatList(lines)}). ` +
        `Add surrounding lines to old_string so it matches exactly one place, or set replace_all: true to change all ${positions.length}.`,
    };
  }
  let next = '';
  let from = 0;
  for (const at of positions) {
    next += content.slice(from, at) + replacement;
    from = at + search.length;
  }
  next += content.slice(from);
  return { ok: true, content: next, replacements: positions.length, firstLine: lineAt(next, positions[0]) };
}

function findAll(content: string, search: string): number[] {
  const positions: number[] = [];
  for (let at = content.indexOf(search); at !== -1; at = content.indexOf(search, at + search.length)) positions.push(at);
  return positions;
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/** 1-based line number of a character offset. */
function lineAt(content: string, offset: number): number {
  let line = 1;
  for (let at = content.indexOf('\n'); at !== -1 && at < offset; at = content.indexOf('\n', at + 1)) line++;
  return line;
}

function formatList(numbers: number[]): string {
  const shown = numbers.slice(0, 20).join(', ');
  return numbers.length > 20 ? `${shown}, … ${numbers.length - 20} more` : shown;
}

// Beyond this many file lines × anchor lines the fuzzy scan only looks near exact line matches.
const FULL_SCAN_BUDGET = 400_000;
const MIN_SIMILARITY = 0.5;

function noMatchMessage(content: string, oldString: string, displayPath: string): string {
  const oldLines = splitLines(oldString);
  if (oldLines.length > 0 && oldLines.filter((l) => l.trim()).every((l) => /^\s*\d+\t/.test(l))) {
    return `old_string was not found in ${displayPath}: it includes the "N<TAB>" line numbers that read_file adds. Leave them out and copy only the file's text.`;
  }
  const fileLines = splitLines(content);
  const best = closestRegion(fileLines, oldLines);
  if (!best || best.score < MIN_SIMILARITY) {
    return `old_string was not found in ${displayPath}, and no similar region exists. Read the file with read_file and copy the exact text to replace.`;
  }
  const first = Math.max(0, best.start - 2);
  const last = Math.min(fileLines.length, best.start + oldLines.length + 2);
  const region = fileLines.slice(best.start, best.start + oldLines.length).join('\n');
  const squash = (text: string) => text.replace(/\s+/g, '');
  const whitespaceOnly = squash(region) === squash(oldLines.join('\n'));
  const why = whitespaceOnly ? ' It differs from old_string only in whitespace or indentation (tabs vs spaces, trailing spaces).' : '';
  return (
    `old_string was not found in ${displayPath}.${why} The closest region is lines ${best.start + 1}-${best.start + oldLines.length}:\n` +
    `${numberLines(fileLines.slice(first, last), first + 1)}\n` +
    'Copy old_string exactly from the file (without the line-number prefixes); if the file may have changed, read it again.'
  );
}

/** The window of file lines most similar to old_string's lines (trimmed), scored 0..1. */
function closestRegion(fileLines: string[], oldLines: string[]): { start: number; score: number } | undefined {
  const anchors = pickAnchors(oldLines);
  if (anchors.length === 0 || fileLines.length === 0) return undefined;
  const trimmedFile = fileLines.map((line) => line.trim());
  const trimmedOld = oldLines.map((line) => line.trim());
  const lastStart = Math.max(0, fileLines.length - oldLines.length);
  let starts: Iterable<number>;
  if (fileLines.length * anchors.length <= FULL_SCAN_BUDGET) {
    starts = range(0, lastStart + 1);
  } else {
    // Large file: only windows that line up with an exact (trimmed) anchor line.
    const candidates = new Set<number>();
    const wanted = new Map(anchors.map((k) => [trimmedOld[k], k]));
    trimmedFile.forEach((line, i) => {
      const k = wanted.get(line);
      if (k !== undefined && i - k >= 0 && i - k <= lastStart) candidates.add(i - k);
    });
    starts = candidates;
  }
  const grams = new Map<number, Map<string, number>>();
  const gramsOf = (i: number) => {
    let g = grams.get(i);
    if (!g) grams.set(i, (g = bigrams(trimmedFile[i])));
    return g;
  };
  const oldGrams = anchors.map((k) => bigrams(trimmedOld[k]));
  let best: { start: number; score: number } | undefined;
  for (const start of starts) {
    let score = 0;
    anchors.forEach((k, j) => {
      const i = start + k;
      if (i >= trimmedFile.length) return;
      score += trimmedFile[i] === trimmedOld[k] ? 1 : dice(gramsOf(i), oldGrams[j]);
    });
    score /= anchors.length;
    if (!best || score > best.score) best = { start, score };
  }
  return best;
}

/** Up to six non-blank lines spread over old_string; scoring them is enough to place it. */
function pickAnchors(oldLines: string[]): number[] {
  const nonBlank = oldLines.map((line, i) => (line.trim() ? i : -1)).filter((i) => i >= 0);
  if (nonBlank.length <= 6) return nonBlank;
  const step = (nonBlank.length - 1) / 5;
  return [...new Set(Array.from({ length: 6 }, (_, j) => nonBlank[Math.round(j * step)]))];
}

function* range(from: number, to: number): Iterable<number> {
  for (let i = from; i < to; i++) yield i;
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Sørensen–Dice similarity of two bigram multisets. */
function dice(a: Map<string, number>, b: Map<string, number>): number {
  let sizeA = 0;
  let sizeB = 0;
  let shared = 0;
  for (const count of a.values()) sizeA += count;
  for (const [gram, count] of b) {
    sizeB += count;
    shared += Math.min(count, a.get(gram) ?? 0);
  }
  return sizeA + sizeB === 0 ? 0 : (2 * shared) / (sizeA + sizeB);
}
