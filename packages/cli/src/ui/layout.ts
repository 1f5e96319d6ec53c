import { contextTokens } from './commands.js';
import { renderCompletion } from './completion.js';
import { renderConfirm } from './confirm-view.js';
import type { ChatController } from './controller.js';
import { renderHistorySearch } from './history-search.js';
import { INPUT_PLACEHOLDER, renderInput } from './input-view.js';
import { renderKeysHelp } from './keys-help.js';
import { renderPicker } from './picker.js';
import { renderStatus } from './status-line.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';
import { SPINNER } from './tool-view.js';
import { currentTodos, renderTodosPanel } from './todos-view.js';

export interface Screen {
  width: number;
  rows: number;
}

/**
 * The live area, bottom up, so that it is always shorter than the terminal: the status row and
 * the input come first, then prompts and menus, and the streaming transcript gets what is left
 * (its newest rows). A live area as tall as the screen would make Ink clear and repaint
 * everything on each frame.
 */
export function layoutLive(controller: ChatController, screen: Screen, now: number): StyledLine[] {
  if (controller.closed) return [];
  const { width } = screen;
  let budget = Math.max(2, screen.rows - 1);
  const frame = Math.floor(now / 80);
  const take = (rows: StyledLine[], max = budget): StyledLine[] => {
    const limit = Math.max(0, Math.min(max, budget));
    const kept = rows.length > limit ? rows.slice(rows.length - limit) : rows;
    budget -= kept.length;
    return kept;
  };

  const status = take([renderStatus(statusInfo(controller), width)]);
  const custom = controller.statusCommand?.line ? take([truncateLine(controller.statusCommand.line, width)]) : [];
  const hint = controller.hint && controller.hint.until > now ? take([[span(controller.hint.text, S.yellow)]]) : [];

  let middle: StyledLine[] = [];
  let input: StyledLine[] = [];
  let menu: StyledLine[] = [];
  const ask = controller.questions.current;
  if (ask) {
    middle = take(renderConfirm(ask, width, Math.max(1, budget - 2)));
  } else if (controller.picker) {
    // A picker with a preview (/resume) may take more rows for it.
    middle = take(renderPicker(controller.picker, width, Math.max(1, Math.min(budget - 2, controller.picker.preview ? 22 : 14))));
  } else if (controller.input.search) {
    input = take(renderHistorySearch(controller.input.search, width, Math.max(3, Math.min(budget - 1, 12))));
    input = [...take([[span('─'.repeat(width), S.gray)]]), ...input];
  } else {
    const placeholder = controller.running ? 'Type to queue a message for the agent · Esc interrupts' : INPUT_PLACEHOLDER;
    input = take(renderInput(controller.input.editor, { width, maxRows: Math.min(10, Math.max(1, Math.floor(budget / 3))), placeholder }));
    input = [...take([[span('─'.repeat(width), S.gray)]]), ...input];
    if (controller.input.completion) menu = take(renderCompletion(controller.input.completion, width, Math.min(6, Math.max(0, budget - 2))));
    else if (controller.showKeys) menu = take(renderKeysHelp(width, Math.max(0, budget - 2)));
  }

  const queued: StyledLine[] = [];
  if (controller.queued.length > 0) {
    const shown = controller.queued.slice(-3);
    for (const text of shown) queued.push(truncateLine([span('⧗ queued: ', S.yellow), span(text.replace(/\s+/g, ' '), S.dim)], width));
  }
  const activity = controller.activity;
  const activityRows: StyledLine[] = activity
    ? [
        truncateLine(
          [
            span(`${SPINNER[frame % SPINNER.length]} ${activity.label}… `, S.cyan),
            span(`${Math.max(0, Math.floor((now - activity.startedAt) / 1000))}s · esc to interrupt`, S.dim),
          ],
          width,
        ),
      ]
    : [];
  const activityKept = take(activityRows);
  const queuedKept = take(queued);
  const stashed = controller.input.stashed;
  const stashKept =
    stashed === undefined
      ? []
      : take([
          truncateLine([span('Stashed the draft (back after your next prompt, or Ctrl+S now): ', S.dim), span(stashed.replace(/\s+/g, ' '), S.dim)], width),
        ]);
  const todos = controller.showTodos ? currentTodos(controller.session) : [];
  const todosKept = todos.length > 0 ? take(renderTodosPanel(todos, width, Math.min(12, budget))) : [];
  const transcript = take(controller.transcript.liveLines(frame, now));

  return [...transcript, ...activityKept, ...todosKept, ...queuedKept, ...stashKept, ...middle, ...input, ...menu, ...hint, ...custom, ...status];
}

function statusInfo(controller: ChatController) {
  const { session, host, usage } = controller;
  const window = host.contextWindow();
  const used = contextTokens(session);
  return {
    model: session.model,
    branch: controller.branch,
    // Fresh prompt tokens: billed input plus cache writes; cache reads are shown apart.
    inputTokens: usage.inputTokens + usage.cacheWriteTokens,
    outputTokens: usage.outputTokens,
    cachedTokens: usage.cacheReadTokens,
    costUsd: host.display.showCost && usage.costKnown && usage.costUsd > 0 ? usage.costUsd : undefined,
    contextPercent: window && used ? Math.min(100, Math.round((used / window) * 100)) : undefined,
    queued: session.queuedCount,
    tasks: host.backgroundTasks?.runningCount(),
    languageServers: host
      .lspServers()
      .filter((server) => server.state === 'running')
      .map((server) => server.name),
    mode: host.permissionMode,
    hint: controller.busy ? undefined : '/help for commands',
    vimMode: controller.input.vim?.mode,
  };
}
