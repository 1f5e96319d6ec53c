import type { PermissionRequest, ToolDetails } from '@beans/core';
import type { AskAnswer } from '../chat-agent.js';
import { clipRows, renderDiff } from './diff-view.js';
import type { Editor } from './editor.js';
import { renderInput } from './input-view.js';
import type { TypingGate } from './typing-gate.js';
import { S, span, truncateLine, wrapText, type SpanStyle, type StyledLine } from './styled.js';

/** A tool call waiting for the user's yes/always/no. */
export interface PendingAsk {
  request: PermissionRequest;
  summary: string;
  /** What the call will do, from the tool's `preview()` (a diff) when it has one. */
  preview?: ToolDetails;
  previewError?: string;
  loading: boolean;
  /** After choosing no, the user may type why; the reason goes back to the model. */
  stage: 'choose' | 'reason';
  /** The answer Enter would give (the highlighted one); arrows move it, a letter answers at once. */
  selected: 'once' | 'always' | 'deny';
  /** First row of the preview shown: a long diff scrolls while the question is open. */
  scroll: number;
  /** What the last frame could show: rows of preview in view and in all (for paging). */
  view?: { rows: number; total: number };
  reason: Editor;
  /** Keys typed at speed (a follow-up the question popped up into) never answer it; it says what it ignored. */
  gate: TypingGate;
  resolve(answer: AskAnswer): void;
}

const INDENT = '  ';

/** What the call will do, whole (every row of a diff): the question shows a scrolled window of it. */
export function previewRows(ask: PendingAsk, width: number): StyledLine[] {
  const input = ask.request.input as Record<string, unknown> | undefined;
  if (ask.preview?.kind === 'diff') {
    const { path, added, removed, diff } = ask.preview;
    return [[span(`${INDENT}${path} `, S.bold), span(`+${added}`, S.green), span(` -${removed}`, S.red)], ...renderDiff(diff, width, INDENT)];
  }
  if (typeof input?.command === 'string') {
    return wrapText(`$ ${input.command}`, width, S.yellow, { first: [span(INDENT)], continuation: [span(`${INDENT}  `)], hard: true });
  }
  if (ask.loading) return [[span(`${INDENT}preparing a preview…`, S.dim)]];
  const rows = ask.previewError ? [[span(`${INDENT}(no preview: ${ask.previewError})`, S.dim)]] : [];
  if (ask.request.tool.kind === 'edit' && typeof input?.path === 'string') return [...rows, ...fileChangeRows(input, width)];
  return [...rows, ...wrapText(JSON.stringify(input ?? {}, null, 2), width, S.dim, { first: [span(INDENT)], continuation: [span(INDENT)], hard: true })];
}

/**
 * A file tool's call without a diff (binary or very large file): the path and the text it brings,
 * in the person's terms rather than raw JSON.
 */
function fileChangeRows(input: Record<string, unknown>, width: number): StyledLine[] {
  const text = (value: unknown, color: SpanStyle, mark: string) =>
    typeof value === 'string' && value !== ''
      ? value
          .split('\n')
          .flatMap((line) => wrapText(`${mark}${line}`, width, color, { first: [span(INDENT)], continuation: [span(`${INDENT}  `)], hard: true }))
      : [];
  const rows: StyledLine[] = [[span(`${INDENT}${String(input.path)}`, S.bold), span(input.append === true ? ' (append)' : '', S.dim)]];
  rows.push(...text(input.old_string, S.red, '- '), ...text(input.new_string, S.green, '+ '), ...text(input.content, S.green, '+ '));
  return rows;
}

/** The confirmation prompt, at most `maxRows` rows: title, what will happen, the keys. */
export function renderConfirm(ask: PendingAsk, width: number, maxRows: number): StyledLine[] {
  const title = truncateLine(
    [
      span('? ', { color: 'yellow', bold: true }),
      span(`Allow ${ask.request.tool.name}`, S.bold),
      span(ask.summary ? ` ${ask.summary}` : '', S.dim),
      span('?', S.bold),
    ],
    width,
  );
  const choice = (value: PendingAsk['selected'], key: string, label: string, color: string) =>
    ask.selected === value
      ? [span(`› ${key} ${label}`, { color: color as 'green', bold: true, inverse: true }), span('  ')]
      : [span('  '), span(key, { color: color as 'green', bold: true }), span(` ${label}  `)];
  const footer: StyledLine[] =
    ask.stage === 'choose'
      ? [
          truncateLine(
            [
              span(INDENT),
              ...choice('once', 'y', 'yes', 'green'),
              ...choice('always', 'a', 'always this session', 'green'),
              ...choice('deny', 'n', 'no', 'red'),
              span('· Enter takes the highlighted · Esc stops', S.dim),
            ],
            width,
          ),
        ]
      : [
          truncateLine([span(INDENT), span('Tell the model why (optional) · Enter sends · Esc skips', S.dim)], width),
          ...renderInput(ask.reason, { width, maxRows: 2, prompt: `${INDENT}› ` }),
        ];
  const ignored = ask.stage === 'choose' ? ask.gate.note() : undefined;
  if (ignored) footer.unshift(truncateLine([span(`${INDENT}${ignored}`, S.dim)], width));
  const room = Math.max(0, maxRows - 1 - footer.length);
  return [title, ...scrolled(ask, previewRows(ask, width), room, width), ...footer].slice(0, Math.max(1, maxRows));
}

/**
 * The window of the preview that fits in `room` rows, from `ask.scroll`, with a row above saying how
 * much is hidden before it and one below saying how much after, and which keys move it. Records
 * the window size on the ask so the keys page by what the person sees.
 */
function scrolled(ask: PendingAsk, rows: StyledLine[], room: number, width: number): StyledLine[] {
  if (rows.length <= room) {
    ask.scroll = 0;
    ask.view = { rows: rows.length, total: rows.length };
    return rows;
  }
  if (room < 3) return clipRows(rows, room, INDENT);
  const shown = room - 2;
  ask.scroll = Math.max(0, Math.min(ask.scroll, rows.length - shown));
  ask.view = { rows: shown, total: rows.length };
  const end = ask.scroll + shown;
  const above = ask.scroll > 0 ? `↑ ${ask.scroll} line${ask.scroll === 1 ? '' : 's'} above` : 'top';
  const below = end < rows.length ? `↓ ${rows.length - end} more line${rows.length - end === 1 ? '' : 's'}` : 'end';
  return [
    truncateLine([span(`${INDENT}${above}`, S.dim), span(` · rows ${ask.scroll + 1}-${end} of ${rows.length}`, S.dim)], width),
    ...rows.slice(ask.scroll, end),
    truncateLine([span(`${INDENT}${below}`, S.dim), span(' · ↑↓ PgUp PgDn Home End scroll · ctrl+o prints it all above', S.dim)], width),
  ];
}
