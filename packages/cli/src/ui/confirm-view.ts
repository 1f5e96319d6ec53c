import type { PermissionRequest, ToolDetails } from '@beans/core';
import type { AskAnswer } from '../chat-host.js';
import { clipRows, renderDiff } from './diff-view.js';
import type { Editor } from './editor.js';
import { renderInput } from './input-view.js';
import { S, span, truncateLine, wrapText, type StyledLine } from './styled.js';

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
  /** The answer Enter would give; letters and arrows move it, only Enter confirms. */
  selected: 'once' | 'always' | 'deny';
  reason: Editor;
  /** Until then, letters are ignored: the user was typing when the prompt appeared. */
  guardUntil: number;
  resolve(answer: AskAnswer): void;
}

const INDENT = '  ';

function body(ask: PendingAsk, width: number): StyledLine[] {
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
  return [...rows, ...wrapText(JSON.stringify(input ?? {}, null, 2), width, S.dim, { first: [span(INDENT)], continuation: [span(INDENT)], hard: true })];
}

/** The confirmation prompt, at most `maxRows` rows: title, what will happen, the keys. */
export function renderConfirm(ask: PendingAsk, width: number, maxRows: number): StyledLine[] {
  const title = truncateLine(
    [span('? ', { color: 'yellow', bold: true }), span(`Allow ${ask.request.tool.name}`, S.bold), span(ask.summary ? ` ${ask.summary}` : '', S.dim), span('?', S.bold)],
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
              span('· Enter confirms · Esc stops', S.dim),
            ],
            width,
          ),
        ]
      : [
          truncateLine([span(INDENT), span('Tell the model why (optional) · Enter sends · Esc skips', S.dim)], width),
          ...renderInput(ask.reason, { width, maxRows: 2, prompt: `${INDENT}› ` }),
        ];
  const room = Math.max(0, maxRows - 1 - footer.length);
  return [title, ...clipRows(body(ask, width), room, INDENT), ...footer].slice(0, Math.max(1, maxRows));
}
