import { plural, type ChatSession, type PermissionMode } from '@beans/core';
import { previewRows } from './confirm-view.js';
import type { ChatView } from './chat-view.js';
import { findBuiltin } from './commands.js';
import type { KeyEvent } from './keys.js';
import { pickerKey } from './picker-keys.js';
import { S, span } from './styled.js';
import { currentTodos } from './todos-view.js';

const DOUBLE_CTRL_C_MS = 2000;
const DOUBLE_ESC_MS = 800;
/** How long a one-off hint (Ctrl+T with no list) stays under the input. */
const HINT_MS = 3000;
/** Ctrl+X Ctrl+K stops every background task when pressed again within this time (as Claude Code). */
const STOP_ALL_CONFIRM_MS = 3000;

/**
 * What each key means at each moment of the chat: a question or a picker takes keys first, then
 * the input box; the keys of their own (Ctrl+C twice, Esc twice, Shift+Tab, Alt+M/P/T, Ctrl+T,
 * Ctrl+O, Ctrl+V, Ctrl+X Ctrl+K) act on the controller.
 */
export class ChatKeys {
  private lastCtrlC = 0;
  private lastEscape = 0;
  /** When Ctrl+X Ctrl+K last asked to be pressed again. */
  private stopAllAskedAt = 0;
  /** The thinking level Alt+T turned off (undefined inside: the provider's default). */
  private thinkingBeforeOff?: { level: ChatSession['thinking'] };
  /** The mode the session began in: yolo joins Shift+Tab's round only then. */
  private readonly startMode: PermissionMode;

  constructor(private readonly chat: ChatView) {
    this.startMode = chat.host.permissionMode;
  }

  route(event: KeyEvent): void {
    if (this.chat.showKeys) {
      this.chat.showKeys = false;
      this.chat.changed();
      if (event.type === 'text' && event.text === '?') return;
    } else if (
      event.type === 'text' &&
      event.text === '?' &&
      !event.paste &&
      this.chat.input.editor.text === '' &&
      !this.chat.questions.current &&
      !this.chat.picker &&
      !this.chat.input.search
    ) {
      this.chat.showKeys = true;
      return this.chat.changed();
    }
    if (event.type === 'key' && event.name === 'ctrl-c') return this.ctrlC();
    if (event.type === 'key' && event.name === 'ctrl-l') return this.chat.redraw();
    if (event.type === 'key' && event.name === 'ctrl-t') return this.toggleTodos();
    if (event.type === 'key' && event.name === 'ctrl-z' && this.chat.options.suspend) return this.chat.options.suspend();
    if (event.type === 'key' && event.name === 'ctrl-o') return this.chat.questions.current ? this.printPreview() : void this.toggleToolOutput();
    // Alt+M, Alt+P, Alt+T: Claude Code's keys for the mode, the model picker and thinking.
    if (event.type === 'key' && (event.name === 'shift-tab' || event.name === 'alt-m') && !this.chat.questions.current) return this.cycleMode();
    if (event.type === 'key' && event.name === 'alt-p' && !this.chat.questions.current && !this.chat.picker) return this.pickModel();
    if (event.type === 'key' && event.name === 'alt-t') return this.toggleThinking();
    if (event.type === 'key' && event.name === 'ctrl-v' && !this.chat.questions.current && !this.chat.picker) return void this.pasteImage();
    // Ctrl+B while a foreground shell command runs moves it to the background (otherwise: cursor left).
    if (event.type === 'key' && event.name === 'ctrl-b' && !this.chat.questions.current && this.chat.host.backgroundTasks?.moveForegroundToBackground()) return;
    if (this.chat.questions.current) return this.chat.questions.handleKey(event);
    if (this.chat.picker) return pickerKey(this.chat, event, this.chat.picker);
    const action = this.chat.input.handleKey(event);
    if (action?.type === 'submit') this.chat.submitTyped(action.text, action.display);
    else if (action?.type === 'exit') this.chat.exit(0);
    else if (action?.type === 'edit-draft') this.editDraft();
    else if (action?.type === 'stop-background') this.stopBackground();
    else if (action?.type === 'escape') {
      if (this.chat.task) this.chat.task.abort.abort();
      else if (this.chat.running) this.chat.interrupt();
      else if (this.chat.input.editor.text === '') this.escapeOnEmptyInput();
    }
  }

  /** Ctrl+V: a picture on the clipboard goes into the prompt as its saved file's path, which attaches it when sent. */
  private async pasteImage(): Promise<void> {
    const pasted = await this.chat.host.pasteImage?.();
    if (!pasted) return;
    if ('error' in pasted) this.chat.transcript.note('info', pasted.error);
    else this.chat.input.handleKey({ type: 'text', text: `'${pasted.path}' `, paste: true });
    this.chat.changed();
  }

  private editDraft(): void {
    const edited = this.chat.options.editDraft?.(this.chat.input.editor.text);
    if (!edited) return;
    if ('error' in edited) this.chat.transcript.note('error', edited.error);
    else this.chat.input.setText(edited.text);
    this.chat.changed();
  }

  /** Shift+Tab: default → auto-edit → plan → default (yolo joins the round only when the session began in it). */
  private cycleMode(): void {
    const modes: PermissionMode[] = ['default', 'auto-edit', 'plan', ...(this.startMode === 'yolo' ? (['yolo'] as const) : [])];
    const at = modes.indexOf(this.chat.host.permissionMode);
    this.chat.host.permissionMode = modes[(at + 1) % modes.length]!;
    this.chat.statusCommand?.refresh();
    this.chat.changed();
  }

  /** Ctrl+O: the newest finished tool's whole output, shown or folded by laying the transcript out again. */
  private async toggleToolOutput(): Promise<void> {
    if (await this.chat.transcript.toggleLastTool()) return this.chat.redraw();
    this.chat.hint = { text: 'No finished tool output to expand yet', until: Date.now() + DOUBLE_CTRL_C_MS };
    this.chat.changed();
  }

  /** Ctrl+O at a question: the whole preview goes to the scrollback above, to read with the terminal's own scrolling. */
  private printPreview(): void {
    const ask = this.chat.questions.current!;
    const rows = previewRows(ask, this.chat.transcript.width);
    this.chat.transcript.output([
      [span(`Whole preview of ${ask.request.tool.name}${ask.summary ? ` ${ask.summary}` : ''} (${rows.length} rows):`, S.bold)],
      ...rows,
    ]);
    this.chat.changed();
  }

  /** Esc twice on an empty input opens /rewind, as in Claude Code. */
  private escapeOnEmptyInput(): void {
    const now = Date.now();
    if (now - this.lastEscape < DOUBLE_ESC_MS) {
      this.lastEscape = 0;
      this.chat.runCommand('rewind');
      return;
    }
    this.lastEscape = now;
    this.chat.hint = { text: 'Press Esc again to rewind', until: now + DOUBLE_ESC_MS };
    this.chat.changed();
  }

  private ctrlC(): void {
    const now = Date.now();
    if (now - this.lastCtrlC < DOUBLE_CTRL_C_MS) return this.chat.exit(130);
    this.lastCtrlC = now;
    if (this.chat.task) this.chat.task.abort.abort();
    if (this.chat.running) this.chat.interrupt();
    else if (this.chat.picker) this.chat.picker = undefined;
    else this.chat.input.setText('');
    this.chat.hint = { text: 'Press Ctrl+C again to exit', until: now + DOUBLE_CTRL_C_MS };
    this.chat.changed();
  }

  /** Alt+P: the /model picker; the draft in the input stays as it is. */
  private pickModel(): void {
    if (this.chat.busy) {
      this.chat.hint = { text: 'Alt+P picks a model once the agent is idle (Esc stops it)', until: Date.now() + HINT_MS };
      return this.chat.changed();
    }
    const model = findBuiltin('model');
    if (model) this.chat.runBuiltin(model, '');
  }

  /** Alt+T: thinking off, or back on at the level it had before (medium if it started off). */
  private toggleThinking(): void {
    const session = this.chat.session;
    if (session.thinking !== 'off') {
      this.thinkingBeforeOff = { level: session.thinking };
      session.thinking = 'off';
      this.chat.transcript.note('info', 'Thinking off from the next request on (Alt+T turns it on).');
    } else {
      session.thinking = this.thinkingBeforeOff ? this.thinkingBeforeOff.level : 'medium';
      this.chat.transcript.note('info', `Thinking on (${session.thinking ?? "the provider's default"}) from the next request on.`);
    }
    this.chat.changed();
  }

  /** Ctrl+X Ctrl+K twice within 3 s: stops every running background task (commands and agents). */
  private stopBackground(): void {
    const tasks = this.chat.host.backgroundTasks;
    const running = tasks?.list().filter((task) => task.state === 'running') ?? [];
    const now = Date.now();
    if (!tasks || running.length === 0) {
      this.chat.hint = { text: 'No background task is running', until: now + HINT_MS };
    } else if (now - this.stopAllAskedAt > STOP_ALL_CONFIRM_MS) {
      this.stopAllAskedAt = now;
      this.chat.hint = { text: `Ctrl+X Ctrl+K again to stop ${plural(running.length, 'background task')}`, until: now + STOP_ALL_CONFIRM_MS };
    } else {
      this.stopAllAskedAt = 0;
      this.chat.hint = undefined;
      void tasks
        .killAll()
        .then((stopped) =>
          this.chat.transcript.note('info', `Stopped ${plural(stopped.length, 'background task')}: ${stopped.map((task) => task.id).join(', ')}.`),
        )
        .catch((error: unknown) => this.chat.transcript.note('error', this.chat.describeError(error)));
    }
    this.chat.changed();
  }

  private toggleTodos(): void {
    if (!this.chat.showTodos && currentTodos(this.chat.session).length === 0) {
      this.chat.hint = { text: 'No task list yet: it shows here once the agent plans with todo_write', until: Date.now() + HINT_MS };
    } else {
      this.chat.showTodos = !this.chat.showTodos;
    }
    this.chat.changed();
  }
}
