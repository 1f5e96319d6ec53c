import { diffWordsWithSpace } from 'diff';
import { S, span, wrapSpans, type Span, type SpanStyle, type StyledLine } from './styled.js';

const ADDED: SpanStyle = { color: 'green' };
const REMOVED: SpanStyle = { color: 'red' };
const NUMBER: SpanStyle = { color: 'gray' };

interface DiffRow {
  sign: '+' | '-' | ' ';
  number: string;
  body: Span[];
}

/** Changed words, marked inside a changed line: the same hue, shown inverse. */
const WORD_ADDED: SpanStyle = { color: 'green', inverse: true };
const WORD_REMOVED: SpanStyle = { color: 'red', inverse: true };
/** Lines sharing less than this share of their characters are rewrites: no word marks. */
const MIN_SHARED = 0.4;

/**
 * A unified diff as coloured rows with line numbers: `+` rows green with the new line number,
 * `-` rows red with the old one, context dim. A line changed in place (a `-` run followed by a `+`
 * run of the same length) marks the words that changed. File headers are dropped (the tool line
 * names the file); hunks are separated by a dim `⋯`. The `+`/`-` signs stay, so it reads without colour.
 */
export function renderDiff(diff: string, width: number, indent = ''): StyledLine[] {
  const rows: (DiffRow | 'hunk')[] = [];
  let oldLine = 0;
  let newLine = 0;
  let hunks = 0;
  const numberWidth = Math.max(3, String(maxLineNumber(diff)).length);
  const pad = (value: number) => String(value).padStart(numberWidth);
  const blank = ' '.repeat(numberWidth);
  for (const raw of diff.split('\n')) {
    if (/^(Index: |={5,}|--- |\+\+\+ |\\ No newline)/.test(raw)) continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      if (hunks++ > 0) rows.push('hunk');
      continue;
    }
    if (hunks === 0) continue;
    const sign = raw[0];
    const body = raw.slice(1);
    if (sign === '+') rows.push({ sign, number: pad(newLine++), body: [span(body, ADDED)] });
    else if (sign === '-') rows.push({ sign, number: pad(oldLine++), body: [span(body, REMOVED)] });
    else if (sign === ' ') {
      rows.push({ sign, number: pad(newLine++), body: [span(body, S.dim)] });
      oldLine++;
    }
  }
  markChangedWords(rows);
  const out: StyledLine[] = [];
  for (const row of rows) {
    if (row === 'hunk') {
      out.push([span(`${indent}${blank} ⋯`, S.dim)]);
      continue;
    }
    const style = row.sign === '+' ? ADDED : row.sign === '-' ? REMOVED : S.dim;
    out.push(
      ...wrapSpans([span(`${row.sign} `, style), ...row.body], width, {
        first: [span(indent), span(`${row.number} `, NUMBER)],
        continuation: [span(indent), span(`${blank}   `)],
        hard: true,
      }),
    );
  }
  return out;
}

/** Pairs each run of removed lines with the added run right after it, line by line, and marks the words that differ. */
function markChangedWords(rows: (DiffRow | 'hunk')[]): void {
  for (let at = 0; at < rows.length;) {
    const removedStart = at;
    while (at < rows.length && rows[at] !== 'hunk' && (rows[at] as DiffRow).sign === '-') at++;
    const addedStart = at;
    while (at < rows.length && rows[at] !== 'hunk' && (rows[at] as DiffRow).sign === '+') at++;
    const removed = addedStart - removedStart;
    if (removed > 0 && removed === at - addedStart) {
      for (let index = 0; index < removed; index++) markPair(rows[removedStart + index] as DiffRow, rows[addedStart + index] as DiffRow);
    }
    if (at === removedStart) at++;
  }
}

function markPair(before: DiffRow, after: DiffRow): void {
  const oldText = before.body[0].text;
  const newText = after.body[0].text;
  const parts = diffWordsWithSpace(oldText, newText);
  const shared = parts.filter((part) => !part.added && !part.removed).reduce((sum, part) => sum + part.value.length, 0);
  if (shared < MIN_SHARED * Math.max(oldText.length, newText.length)) return;
  before.body = parts.filter((part) => !part.added).map((part) => span(part.value, part.removed ? WORD_REMOVED : REMOVED));
  after.body = parts.filter((part) => !part.removed).map((part) => span(part.value, part.added ? WORD_ADDED : ADDED));
}

function maxLineNumber(diff: string): number {
  let max = 0;
  for (const match of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
    max = Math.max(max, Number(match[1]) + Number(match[2] ?? 1), Number(match[3]) + Number(match[4] ?? 1));
  }
  return max;
}

/** Keeps at most `max` rows, saying how many were left out. */
export function clipRows(rows: StyledLine[], max: number, indent = ''): StyledLine[] {
  if (rows.length <= max) return rows;
  if (max <= 0) return [];
  const keep = Math.max(0, max - 1);
  return [...rows.slice(0, keep), [span(`${indent}… ${rows.length - keep} more lines`, S.dim)]];
}
