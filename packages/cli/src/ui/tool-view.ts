import { contentText, type Todo, type ToolKind, type ToolResultMessage, type ToolStatus } from '@beans/core';
import { clipRows, renderDiff } from './diff-view.js';
import { S, span, truncateLine, wrapSpans, wrapText, type SpanStyle, type StyledLine } from './styled.js';
import { renderTaskProgress, type TaskProgress } from './task-view.js';
import { languageServerNote } from './lsp-note.js';
import { resultSummary } from './tool-summary.js';

type ToolPhase = 'running' | 'waiting' | ToolStatus;

/** A tool call as the transcript shows it, from start to result. */
export interface ToolView {
  id: string;
  name: string;
  summary: string;
  kind?: ToolKind;
  phase: ToolPhase;
  startedAt: number;
  /** The tail of streamed output (shell lines) while it runs. */
  output: string;
  result?: ToolResultMessage;
  /** A `task` call's child: its progress, nested under the call. */
  child?: TaskProgress;
  /** Ctrl+O: the whole output (from the saved file when the model's copy was cut) instead of a preview. */
  expanded?: { text: string; note?: string };
}

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

const PHASES: Record<ToolPhase, { icon: string; style: SpanStyle; label?: string }> = {
  running: { icon: '', style: S.cyan },
  waiting: { icon: '?', style: S.yellow, label: 'awaiting approval' },
  ok: { icon: '✓', style: S.green },
  error: { icon: '✗', style: S.red, label: 'error' },
  denied: { icon: '⊘', style: S.yellow, label: 'denied' },
  skipped: { icon: '↷', style: S.dim, label: 'skipped' },
  interrupted: { icon: '■', style: S.yellow, label: 'interrupted' },
};

const DETAIL_INDENT = '    ';

export interface ToolRenderOptions {
  width: number;
  /** Spinner frame index and clock, for running tools. */
  frame?: number;
  now?: number;
  /** Most rows a diff or output preview may take. */
  maxDetailRows?: number;
}

export function renderTool(view: ToolView, options: ToolRenderOptions): StyledLine[] {
  const { width } = options;
  const maxRows = options.maxDetailRows ?? 40;
  const phase = PHASES[view.phase];
  const icon = view.phase === 'running' ? SPINNER[(options.frame ?? 0) % SPINNER.length] : phase.icon;
  const details = view.result?.details;
  const head: StyledLine = [span(`${icon} `, phase.style), span(view.name, S.bold)];
  if (view.summary && view.summary !== view.name) head.push(span(` ${view.summary}`, S.dim));
  if (details?.kind === 'diff' && view.phase === 'ok') {
    head.push(span(`  +${details.added}`, S.green), span(` -${details.removed}`, S.red));
  }
  if (phase.label) head.push(span(` · ${phase.label}`, phase.style));
  const outcome = view.result ? resultSummary(view.name, view.result) : undefined;
  if (outcome) head.push(span(` · ${outcome}`, view.phase === 'ok' ? S.dim : phase.style));
  const elapsed = Math.floor(((options.now ?? view.startedAt) - view.startedAt) / 1000);
  if (view.phase === 'running' && elapsed >= 1) head.push(span(` ${elapsed}s`, S.dim));
  // A command that runs on can be moved to the background (the controller's Ctrl+B).
  if (view.phase === 'running' && view.name === 'shell' && elapsed >= 2) head.push(span(' · ctrl+b to run in background', S.dim));
  const out: StyledLine[] = [truncateLine(head, width)];
  if (view.child) out.push(...renderTaskProgress(view.child, width, view.phase !== 'running' && view.phase !== 'waiting'));

  const detailWidth = width - DETAIL_INDENT.length;
  const text = (content: string, style: SpanStyle | undefined, rows: number) =>
    clipRows(wrapText(content.trimEnd(), detailWidth, style, { first: [span(DETAIL_INDENT)], continuation: [span(DETAIL_INDENT)] }), rows, DETAIL_INDENT);

  const resultText = view.result ? contentText(view.result.content) : '';
  if (view.expanded) {
    if (details?.kind === 'diff') out.push(...renderDiff(details.diff, width, DETAIL_INDENT));
    else out.push(...text(view.expanded.text, view.phase === 'error' ? S.red : undefined, Infinity));
    if (view.expanded.note) out.push(...text(view.expanded.note, S.dim, Infinity));
    return out;
  }
  switch (view.phase) {
    case 'running':
      if (view.output.trim()) out.push(...tailRows(text(view.output, S.dim, Infinity), 3));
      break;
    case 'ok':
      if (details?.kind === 'diff') {
        out.push(...clipRows(renderDiff(details.diff, width, DETAIL_INDENT), maxRows, DETAIL_INDENT));
        const problems = languageServerNote(resultText);
        if (problems) out.push(...text(problems, S.yellow, Math.min(12, maxRows)));
      } else if (details?.kind === 'todos') out.push(...renderTodos(details.todos, width, DETAIL_INDENT));
      else if (view.kind === 'execute' && resultText.trim()) out.push(...text(resultText, S.dim, Math.min(5, maxRows)));
      break;
    case 'error':
      if (resultText) out.push(...text(resultText, S.red, Math.min(4, maxRows)));
      break;
    case 'denied': {
      const reason = resultText.replace(/^Permission denied:\s*/, '');
      if (reason) out.push(...text(reason, S.yellow, 2));
      break;
    }
    default:
      break;
  }
  return out;
}

function tailRows(rows: StyledLine[], max: number): StyledLine[] {
  return rows.length <= max ? rows : rows.slice(rows.length - max);
}

const TODO_MARKS: Record<Todo['status'], { mark: string; style?: SpanStyle }> = {
  pending: { mark: '☐' },
  in_progress: { mark: '◐', style: { bold: true, color: 'cyan' } },
  completed: { mark: '☑', style: { dim: true, strikethrough: true } },
};

/** The plan from `todo_write` as a checklist. */
export function renderTodos(todos: readonly Todo[], width: number, indent = ''): StyledLine[] {
  if (todos.length === 0) return [[span(`${indent}(no tasks)`, S.dim)]];
  return todos.flatMap((todo) => {
    const { mark, style } = TODO_MARKS[todo.status] ?? TODO_MARKS.pending;
    return wrapSpans([span(todo.content, style)], width, {
      first: [span(indent), span(`${mark} `, style?.color ? { color: style.color } : undefined)],
      continuation: [span(`${indent}  `)],
    });
  });
}
