import { parseInline } from './markdown-inline.js';
import { lineWidth, span, wrapSpans, type Span, type SpanStyle, type StyledLine } from './styled.js';

const BORDER: SpanStyle = { color: 'gray' };
const HEADER: SpanStyle = { bold: true };
const TABLE_RULE = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;
/** Narrowest a column gets before the table gives up on columns and prints its rows as lines. */
const MIN_COLUMN = 3;

type Align = 'left' | 'right' | 'center';

export function isTableRow(line: string): boolean {
  return line.trimStart().startsWith('|');
}

/** Cells of `| a | b \| c |`: outer pipes dropped, escaped pipes kept in the cell. */
function cellsOf(line: string): string[] {
  let body = line.trim();
  if (body.startsWith('|')) body = body.slice(1);
  if (body.endsWith('|') && !body.endsWith('\\|')) body = body.slice(0, -1);
  return body.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function alignOf(cell: string): Align {
  const left = cell.startsWith(':');
  const right = cell.endsWith(':');
  return left && right ? 'center' : right ? 'right' : 'left';
}

/**
 * Widths that fit `room` columns in all: every column keeps its natural width up to a common cap,
 * and the cap is the largest that fits (wide columns give way first, narrow ones stay whole).
 */
function fitWidths(natural: number[], room: number): number[] | undefined {
  if (natural.reduce((sum, width) => sum + width, 0) <= room) return natural;
  if (natural.length * MIN_COLUMN > room) return undefined;
  let low = MIN_COLUMN;
  let high = Math.max(...natural);
  while (low < high) {
    const cap = Math.ceil((low + high) / 2);
    if (natural.reduce((sum, width) => sum + Math.min(width, cap), 0) <= room) low = cap;
    else high = cap - 1;
  }
  const widths = natural.map((width) => Math.max(Math.min(width, low), Math.min(width, MIN_COLUMN)));
  // Columns that were capped share what is left over, one column at a time.
  let spare = room - widths.reduce((sum, width) => sum + width, 0);
  for (let index = 0; spare > 0 && index < widths.length; index++) {
    if (widths[index] < natural[index]) {
      const extra = Math.min(spare, natural[index] - widths[index]);
      widths[index] += extra;
      spare -= extra;
    }
  }
  return widths;
}

function pad(row: StyledLine, width: number, align: Align): StyledLine {
  const gap = Math.max(0, width - lineWidth(row));
  const before = align === 'right' ? gap : align === 'center' ? Math.floor(gap / 2) : 0;
  return [span(' '.repeat(before)), ...row, span(' '.repeat(gap - before))];
}

function rule(widths: number[], left: string, middle: string, right: string): StyledLine {
  return [span(left + widths.map((width) => '─'.repeat(width + 2)).join(middle) + right, BORDER)];
}

/**
 * A Markdown table drawn with aligned columns; cells wrap inside their column when the table is
 * wider than the terminal. A table too narrow even for that prints each row as one wrapped line.
 */
export function renderTable(lines: readonly string[], width: number): StyledLine[] {
  const rows = lines.filter((line) => line.trim() !== '');
  const ruleAt = rows.findIndex((line) => TABLE_RULE.test(line) && line.includes('-'));
  const aligns = ruleAt >= 0 ? cellsOf(rows[ruleAt]).map(alignOf) : [];
  const header = ruleAt === 1 ? cellsOf(rows[0]) : undefined;
  const body = rows.filter((_, index) => index !== ruleAt && !(header && index === 0)).map(cellsOf);
  const all = header ? [header, ...body] : body;
  const columns = Math.max(0, ...all.map((row) => row.length));
  if (columns === 0) return [];
  const spans = all.map((row, index) =>
    Array.from({ length: columns }, (_, column) => parseInline(row[column] ?? '', header && index === 0 ? HEADER : undefined)),
  );
  const natural = Array.from({ length: columns }, (_, column) => Math.max(1, ...spans.map((row) => lineWidth(row[column]))));
  const widths = fitWidths(natural, width - (3 * columns + 1));
  if (!widths)
    return spans.flatMap((row) =>
      wrapSpans(
        row.flatMap((cell, column) => (column > 0 ? [span(' │ ', BORDER), ...cell] : cell)),
        width,
      ),
    );

  const out: StyledLine[] = [rule(widths, '┌', '┬', '┐')];
  const drawRow = (row: Span[][]) => {
    const cells = row.map((cell, column) => wrapSpans(cell, widths[column]));
    const height = Math.max(...cells.map((cell) => cell.length));
    for (let line = 0; line < height; line++) {
      const parts: StyledLine = [span('│', BORDER)];
      cells.forEach((cell, column) => {
        parts.push(span(' '), ...pad(cell[line] ?? [], widths[column], aligns[column] ?? 'left'), span(' '), span('│', BORDER));
      });
      out.push(parts);
    }
  };
  spans.forEach((row, index) => {
    drawRow(row);
    if (header && index === 0) out.push(rule(widths, '├', '┼', '┤'));
  });
  out.push(rule(widths, '└', '┴', '┘'));
  return out;
}
