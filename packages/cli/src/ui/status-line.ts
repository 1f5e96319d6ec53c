import { S, span, lineWidth, truncateLine, type Span, type StyledLine } from './styled.js';

export interface StatusInfo {
  model: string;
  /** The workspace's git branch (or short commit when detached). */
  branch?: string;
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (not counted in `inputTokens`). */
  cachedTokens?: number;
  /** Undefined when unknown or nothing was spent. */
  costUsd?: number;
  contextPercent?: number;
  queued: number;
  /** Background commands running (`/tasks`). */
  tasks?: number;
  /** The permission mode, shown only when it is not `default`. */
  mode?: string;
  /** Shown on the right, e.g. "esc to interrupt". */
  hint?: string;
  /** Language servers running now (`/lsp`), by name; shown last, so a narrow terminal drops them first. */
  languageServers?: string[];
  /** Vim mode's state of the input (`/vim`), shown first; undefined with the usual key bindings. */
  vimMode?: 'insert' | 'normal';
}

export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

const MODE_LABELS: Record<string, string> = {
  'auto-edit': 'auto-edit on',
  plan: 'plan mode',
  yolo: 'yolo: everything runs without asking',
};

/**
 * One row under the input. Parts are dropped from the least useful end when the terminal is
 * narrow, so the row never wraps.
 */
export function renderStatus(info: StatusInfo, width: number): StyledLine {
  const parts: Span[][] = [[span(info.model, { color: 'magenta' })]];
  if (info.mode && info.mode !== 'default')
    parts.splice(0, 0, [
      span(`⏵⏵ ${MODE_LABELS[info.mode] ?? info.mode}`, { color: info.mode === 'plan' ? 'cyan' : info.mode === 'yolo' ? 'red' : 'yellow', bold: true }),
      span(' (shift+tab)', S.dim),
    ]);
  if (info.tasks) parts.splice(0, 0, [span(`${info.tasks} task${info.tasks === 1 ? '' : 's'} running`, S.cyan), span(' (/tasks)', S.dim)]);
  if (info.queued > 0) parts.splice(0, 0, [span(`${info.queued} queued`, { color: 'yellow', bold: true })]);
  if (info.vimMode)
    parts.splice(0, 0, [span(info.vimMode === 'insert' ? '-- INSERT --' : '-- NORMAL --', info.vimMode === 'insert' ? S.dim : { color: 'green', bold: true })]);
  parts.push([
    span(`↑${formatTokens(info.inputTokens)} ↓${formatTokens(info.outputTokens)}${info.cachedTokens ? ` (${formatTokens(info.cachedTokens)} cached)` : ''}`),
  ]);
  if (info.contextPercent !== undefined) {
    const style = info.contextPercent >= 90 ? S.red : info.contextPercent >= 70 ? S.yellow : undefined;
    parts.push([span(`${info.contextPercent}% context`, style)]);
  }
  if (info.costUsd !== undefined) parts.push([span(`$${info.costUsd < 0.01 ? info.costUsd.toFixed(4) : info.costUsd.toFixed(2)}`)]);
  if (info.languageServers?.length) parts.push([span(`LSP ${info.languageServers.join(', ')}`, S.dim)]);
  // The branch sits on the right, before the hint; it is the first thing to go when the row is full.
  const branch = info.branch ? [span(`⎇ ${info.branch}`, S.cyan)] : [];
  const hint = info.hint ? [span(info.hint, S.dim)] : [];
  const rights: StyledLine[] = branch.length ? [[...branch, ...(hint.length ? [span(' · ', S.dim), ...hint] : [])], hint] : [hint];
  const build = (count: number, right: StyledLine): StyledLine => {
    const left: StyledLine = [];
    parts.slice(0, count).forEach((part, index) => {
      if (index > 0) left.push(span(' · ', S.dim));
      left.push(...part);
    });
    const gap = width - lineWidth(left) - lineWidth(right);
    return gap >= 2 && right.length ? [...left, span(' '.repeat(gap)), ...right] : left;
  };
  for (let count = parts.length; count > 1; count--) {
    for (const right of rights) {
      const line = build(count, right);
      if (lineWidth(line) <= width && (right.length === 0 || line.at(-1) === right.at(-1))) return line;
    }
    const line = build(count, []);
    if (lineWidth(line) <= width) return line;
  }
  return truncateLine(build(1, []), width);
}
