import { S, span, wrapSpans, type SpanStyle, type StyledLine } from './styled.js';

const ADDED: SpanStyle = { color: 'green' };
const REMOVED: SpanStyle = { color: 'red' };
const NUMBER: SpanStyle = { color: 'gray' };

/**
 * A unified diff as coloured rows with line numbers: `+` rows green with the new line number,
 * `-` rows red with the old one, context dim. File headers are dropped (the tool line names the
 * file); hunks are separated by a dim `⋯`. The `+`/`-` signs stay, so it reads without colour.
 */
export function renderDiff(diff: string, width: number, indent = ''): StyledLine[] {
  const out: StyledLine[] = [];
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
      if (hunks++ > 0) out.push([span(`${indent}${blank} ⋯`, S.dim)]);
      continue;
    }
    if (hunks === 0) continue;
    const sign = raw[0];
    const body = raw.slice(1);
    let number: string;
    let style: SpanStyle | undefined;
    if (sign === '+') {
      number = pad(newLine++);
      style = ADDED;
    } else if (sign === '-') {
      number = pad(oldLine++);
      style = REMOVED;
    } else if (sign === ' ') {
      number = pad(newLine++);
      oldLine++;
      style = S.dim;
    } else continue;
    const gutter = [span(indent), span(`${number} `, NUMBER)];
    out.push(...wrapSpans([span(`${sign} ${body}`, style)], width, {
      first: gutter,
      continuation: [span(indent), span(`${blank}   `)],
      hard: true,
    }));
  }
  return out;
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
