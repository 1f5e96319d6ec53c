import {
  addUsage,
  emptyUsage,
  gitBranch,
  plural,
  type UsageTotals,
  type AgentEvent,
  type AgentRunResult,
  type ChatSession,
  type PermissionMode,
  type SubmitOutcome,
  type UserMessage,
} from '@beans/core';
import type { ThemeName } from './theme.js';
import type { ChatHost } from '../chat-host.js';
import { AskQueue } from './ask-queue.js';
import { previewRows } from './confirm-view.js';
import { StatusCommand } from './status-command.js';
import { statusLineInput } from './statusline-command.js';
import { findBuiltin, type Builtin, type CommandContext } from './commands.js';
import { FrameClock } from './frame-clock.js';
import { InputBox } from './input-box.js';
import { isMemoryNote, memoryNotePicker } from './memory-note.js';
import type { KeyEvent } from './keys.js';
import { editQuery, movePicker, shownItems, type Picker } from './picker.js';
import { S, span, type StyledLine } from './styled.js';
import { TranscriptStore, type Block } from './transcript.js';
import { taskProgressOf } from './task-view.js';
import { currentTodos } from './todos-view.js';

export interface ControllerOptions {
  width: number;
  /** Called once when the user leaves; the code is the process exit code. */
  exit(code: number): void;
  /** Clears the terminal and mounts the view afresh (run-chat); the controller lays rows out first. */
  repaint?(): void;
  /** How long after a turn the Notification hooks hear that the agent waits for input (default a minute). */
  idleNoticeMs?: number;
  /** Writes control data to the terminal as it is (OSC 52 for /copy); absent when there is no terminal. */
  writeTerminal?(data: string): void;
  /** Ctrl+G: the draft edited in the user's editor, the terminal handed over meanwhile (run-chat). */
  editDraft?(draft: string): { text: string } | { error: string };
  /** Ctrl+Z: stops the process as a shell's job (run-chat); returns once it is continued (`fg`). */
  suspend?(): void;
}

const DOUBLE_CTRL_C_MS = 2000;
const DOUBLE_ESC_MS = 800;
/** How long a one-off hint (Ctrl+T with no list) stays under the input. */
const HINT_MS = 3000;
/** Ctrl+X Ctrl+K stops every background task when pressed again within this time (as Claude Code). */
const STOP_ALL_CONFIRM_MS = 3000;
/** Claude Code notifies after a minute of waiting for input; so does Beans. */
export const IDLE_NOTICE_MS = 60_000;
/** Finished rows handed to the terminal per frame; a burst of more is spread over frames. */
const MAX_ROWS_PER_FRAME = 100;

/**
 * The chat UI's state and behaviour, apart from drawing: what Enter, Esc and Ctrl+C mean at each
 * moment, prompts and queued messages, built-in commands, pickers. It talks to the agent only
 * through the ChatHost and its session.
 */
export class ChatController {
  readonly transcript: TranscriptStore;
  readonly input: InputBox;
  readonly questions: AskQueue;
  blocks: Block[] = [];
  picker?: Picker;
  task?: { label: string; startedAt: number; abort: AbortController };
  hint?: { text: string; until: number };
  /** Ctrl+T: the agent's task list stays above the input. */
  showTodos = false;
  /** `?` on an empty input: the keys are listed under it until the next key. */
  showKeys = false;
  /** When Ctrl+X Ctrl+K last asked to be pressed again. */
  private stopAllAskedAt = 0;
  /** The thinking level Alt+T turned off (undefined inside: the provider's default). */
  private thinkingBeforeOff?: { level: ChatSession['thinking'] };
  /** The user's turn from Enter on: its prompt is prepared (commands, @files, hooks) before the agent runs, and Esc stops either. */
  turn?: { startedAt: number; abort: AbortController };
  session: ChatSession;
  /** ui.theme, or what /theme chose. */
  theme: ThemeName;
  /** Set on exit: the live area disappears so the terminal keeps only the transcript. */
  closed = false;
  /**
   * Start-up after a first frame drawn before the session (run-chat): keys typed meanwhile pile up
   * and arrive as one read, so an unbracketed Enter in it stays Enter (keys.ts typedReads).
   */
  startingUp = false;
  /** The workspace's git branch for the footer, read again after each message. */
  branch?: string;
  /** The `statusLine` setting's command, drawn above the footer. */
  readonly statusCommand?: StatusCommand;
  private readonly startedAt = Date.now();

  private lastCtrlC = 0;
  private lastEscape = 0;
  private waitingSince?: { ask: object; at: number };
  private usageBefore: UsageTotals = emptyUsage();
  private readonly startMode: PermissionMode;
  private idleTimer?: NodeJS.Timeout;
  private readonly clock = new FrameClock(
    () => {
      this.blocks = this.transcript.takeBlocks(MAX_ROWS_PER_FRAME);
    },
    () => this.transcript.backlog > 0,
  );
  private readonly cleanups: (() => void)[] = [];
  private unsubscribeSession?: () => void;

  constructor(
    readonly host: ChatHost,
    private readonly options: ControllerOptions,
  ) {
    this.session = host.session;
    this.startMode = host.permissionMode;
    this.theme = host.display.theme;
    this.transcript = new TranscriptStore(options.width, () => this.changed(false), host.display.markdown);
    this.input = new InputBox(host, promptHistory(host.session), () => this.changed());
    this.questions = new AskQueue({
      session: () => this.session,
      lastTypedAt: () => this.input.lastTypedAt,
      setWaiting: (callId, waiting) => this.transcript.setWaiting(callId, waiting),
      changed: () => this.changed(),
    });
    const { profile, profileSource, provider, workspace } = host.header;
    this.transcript.header([
      span('beans', { bold: true, color: 'cyan' }),
      span(` · ${profile}`, S.bold),
      span(` (${profileSource})`, S.dim),
      span(` · ${provider}`),
      span(` · ${workspace}`, S.dim),
    ]);
    for (const notice of host.startupNotices) {
      if (notice.kind === 'warning') this.transcript.warning(notice.text);
      else this.transcript.note('info', notice.text);
    }
    this.attach(host.session);
    host.setPermissionAsker((request, signal) => this.questions.ask(request, signal));
    this.cleanups.push(host.onSessionChange((session) => this.attach(session, true)));
    // A background task starting or ending changes the status line's count.
    const unsubscribeTasks = host.backgroundTasks?.subscribe(() => this.changed(false));
    if (unsubscribeTasks) this.cleanups.push(unsubscribeTasks);
    this.blocks = this.transcript.takeBlocks(MAX_ROWS_PER_FRAME);
    if (this.transcript.backlog > 0) this.changed(false);
    this.branch = gitBranch(host.header.workspace);
    if (host.statusLine) {
      const statusCommand = new StatusCommand({
        ...host.statusLine,
        input: () => statusLineInput({ host, session: this.session, usage: this.usage, startedAt: this.startedAt, branch: this.branch }),
        changed: () => this.changed(false),
      });
      this.statusCommand = statusCommand;
      this.cleanups.push(() => statusCommand.dispose());
      // After the first frame: the command never delays the prompt.
      setTimeout(() => statusCommand.refresh(), 0).unref?.();
    }
  }

  /** After a message, a mode change or a new conversation: the branch is read again and the status line command runs (throttled). */
  private refreshFooter(): void {
    this.branch = gitBranch(this.host.header.workspace);
    this.statusCommand?.refresh();
  }

  // ---- change notification (throttled for streaming, immediate for keys) ----

  readonly subscribe = this.clock.subscribe;
  readonly getVersion = this.clock.getVersion;

  changed(urgent = true): void {
    this.clock.changed(urgent);
  }

  private emit(): void {
    this.clock.frame();
  }

  dispose(): void {
    this.clock.cancel();
    clearTimeout(this.idleTimer);
    this.unsubscribeSession?.();
    this.transcript.dispose();
    for (const cleanup of this.cleanups) cleanup();
  }

  setWidth(width: number): void {
    this.transcript.setWidth(width);
    this.changed();
  }

  /**
   * A clean redraw (after a resize, or Ctrl+L): the whole transcript is laid out again at `width`
   * and handed to a fresh view on a cleared screen, so no row drawn at the old width survives.
   */
  redraw(width = this.transcript.width): void {
    if (this.closed) return;
    this.transcript.redraw(width);
    this.blocks = [];
    this.clock.cancel();
    this.options.repaint?.();
    this.emit();
  }

  /** Shift+Tab: default → auto-edit → plan → default (yolo joins the round only when the session began in it). */
  private cycleMode(): void {
    const modes: PermissionMode[] = ['default', 'auto-edit', 'plan', ...(this.startMode === 'yolo' ? (['yolo'] as const) : [])];
    const at = modes.indexOf(this.host.permissionMode);
    this.host.permissionMode = modes[(at + 1) % modes.length]!;
    this.statusCommand?.refresh();
    this.changed();
  }

  /** Ctrl+O: the newest finished tool's whole output, shown or folded by laying the transcript out again. */
  private async toggleToolOutput(): Promise<void> {
    if (await this.transcript.toggleLastTool()) return this.redraw();
    this.hint = { text: 'No finished tool output to expand yet', until: Date.now() + DOUBLE_CTRL_C_MS };
    this.changed();
  }

  /** Ctrl+O at a question: the whole preview goes to the scrollback above, to read with the terminal's own scrolling. */
  private printPreview(): void {
    const ask = this.questions.current!;
    const rows = previewRows(ask, this.transcript.width);
    this.transcript.output([
      [span(`Whole preview of ${ask.request.tool.name}${ask.summary ? ` ${ask.summary}` : ''} (${rows.length} rows):`, S.bold)],
      ...rows,
    ]);
    this.changed();
  }

  /** An error as a note: its message, and with `debug` its stack too. */
  describeError(error: unknown): string {
    if (this.host.display.debug && error instanceof Error && error.stack) return error.stack;
    return messageOf(error);
  }

  // ---- state the view reads ----

  /** Messages typed while the agent works, in the order it will see them (the session's one queue). */
  get queued(): string[] {
    return this.session.queued.map((queued) => queued.text);
  }

  get running(): boolean {
    return this.session.isRunning || this.turn !== undefined;
  }

  get busy(): boolean {
    return this.running || this.task !== undefined;
  }

  /**
   * Tokens and cost of the whole conversation: what the stored turns cost (after --continue or
   * /resume) plus what this process spent.
   */
  get usage(): UsageTotals {
    const totals = { ...this.usageBefore };
    totals.inputTokens += this.session.usage.inputTokens;
    totals.outputTokens += this.session.usage.outputTokens;
    totals.cacheReadTokens += this.session.usage.cacheReadTokens;
    totals.cacheWriteTokens += this.session.usage.cacheWriteTokens;
    totals.costUsd += this.session.usage.costUsd;
    totals.costKnown &&= this.session.usage.costKnown;
    return totals;
  }

  get activity(): { label: string; startedAt: number } | undefined {
    if (this.task) return this.task;
    if (!this.turn) return undefined;
    const ask = this.questions.current;
    if (!ask) return { label: 'Working', startedAt: this.turn.startedAt };
    // The wait counts from when this question appeared, not from the start of the turn.
    if (this.waitingSince?.ask !== ask) this.waitingSince = { ask, at: Date.now() };
    return { label: 'Waiting for your answer', startedAt: this.waitingSince.at };
  }

  // ---- sessions ----

  private attach(session: ChatSession, replaced = false): void {
    this.unsubscribeSession?.();
    this.session = session;
    this.usageBefore = emptyUsage();
    // Answers, and the compaction summaries their notes recorded.
    for (const message of session.messages)
      if ((message.role === 'assistant' || message.role === 'note') && message.usage) addUsage(this.usageBefore, message.usage);
    this.transcript.bind(session);
    this.unsubscribeSession = session.subscribe((event) => this.onSessionEvent(event));
    if (replaced) this.transcript.note('info', `Session ${session.id}${session.messages.length ? ' (resumed)' : ' (new)'}`);
    if (session.messages.length > 0) this.transcript.history(session.messages, (id) => taskProgressOf(this.host, id));
    if (replaced) this.refreshFooter();
    this.changed();
  }

  private onSessionEvent(event: AgentEvent): void {
    if (event.type === 'queue_update') this.changed();
    if (event.type === 'message_end') this.refreshFooter();
  }

  // ---- keys ----

  handleKey = (event: KeyEvent): void => this.clock.batch(() => this.routeKey(event));

  private routeKey(event: KeyEvent): void {
    if (this.showKeys) {
      this.showKeys = false;
      this.changed();
      if (event.type === 'text' && event.text === '?') return;
    } else if (
      event.type === 'text' &&
      event.text === '?' &&
      !event.paste &&
      this.input.editor.text === '' &&
      !this.questions.current &&
      !this.picker &&
      !this.input.search
    ) {
      this.showKeys = true;
      return this.changed();
    }
    if (event.type === 'key' && event.name === 'ctrl-c') return this.ctrlC();
    if (event.type === 'key' && event.name === 'ctrl-l') return this.redraw();
    if (event.type === 'key' && event.name === 'ctrl-t') return this.toggleTodos();
    if (event.type === 'key' && event.name === 'ctrl-z' && this.options.suspend) return this.options.suspend();
    if (event.type === 'key' && event.name === 'ctrl-o') return this.questions.current ? this.printPreview() : void this.toggleToolOutput();
    // Alt+M, Alt+P, Alt+T: Claude Code's keys for the mode, the model picker and thinking.
    if (event.type === 'key' && (event.name === 'shift-tab' || event.name === 'alt-m') && !this.questions.current) return this.cycleMode();
    if (event.type === 'key' && event.name === 'alt-p' && !this.questions.current && !this.picker) return this.pickModel();
    if (event.type === 'key' && event.name === 'alt-t') return this.toggleThinking();
    if (event.type === 'key' && event.name === 'ctrl-v' && !this.questions.current && !this.picker) return void this.pasteImage();
    // Ctrl+B while a foreground shell command runs moves it to the background (otherwise: cursor left).
    if (event.type === 'key' && event.name === 'ctrl-b' && !this.questions.current && this.host.backgroundTasks?.moveForegroundToBackground()) return;
    if (this.questions.current) return this.questions.handleKey(event);
    if (this.picker) return this.pickerKey(event, this.picker);
    const action = this.input.handleKey(event);
    if (action?.type === 'submit') this.submit(action.text, action.display);
    else if (action?.type === 'exit') this.exit(0);
    else if (action?.type === 'edit-draft') this.editDraft();
    else if (action?.type === 'stop-background') this.stopBackground();
    else if (action?.type === 'escape') {
      if (this.task) this.task.abort.abort();
      else if (this.running) this.interrupt();
      else if (this.input.editor.text === '') this.escapeOnEmptyInput();
    }
  }

  /** Ctrl+V: a picture on the clipboard goes into the prompt as its saved file's path, which attaches it when sent. */
  private async pasteImage(): Promise<void> {
    const pasted = await this.host.pasteImage?.();
    if (!pasted) return;
    if ('error' in pasted) this.transcript.note('info', pasted.error);
    else this.input.handleKey({ type: 'text', text: `'${pasted.path}' `, paste: true });
    this.changed();
  }

  private editDraft(): void {
    const edited = this.options.editDraft?.(this.input.editor.text);
    if (!edited) return;
    if ('error' in edited) this.transcript.note('error', edited.error);
    else this.input.setText(edited.text);
    this.changed();
  }

  /** A built-in the user asked for (typed, or its key); it may change what the status line shows (/model, /rename, /agent), which runs again after. */
  private runBuiltin(builtin: Builtin, args: string): void {
    void Promise.resolve(builtin.run?.(args, this.commandContext()))
      .then(() => this.refreshFooter())
      .catch((error: unknown) => this.transcript.note('error', this.describeError(error)));
  }

  /** A built-in command as if typed, without showing it (`beans -r` opens /resume). */
  runCommand(name: string, args = ''): void {
    void Promise.resolve(findBuiltin(name)?.run?.(args, this.commandContext())).catch((error: unknown) =>
      this.transcript.note('error', this.describeError(error)),
    );
  }

  /** Esc twice on an empty input opens /rewind, as in Claude Code. */
  private escapeOnEmptyInput(): void {
    const now = Date.now();
    if (now - this.lastEscape < DOUBLE_ESC_MS) {
      this.lastEscape = 0;
      void Promise.resolve(findBuiltin('rewind')?.run?.('', this.commandContext())).catch((error: unknown) =>
        this.transcript.note('error', this.describeError(error)),
      );
      return;
    }
    this.lastEscape = now;
    this.hint = { text: 'Press Esc again to rewind', until: now + DOUBLE_ESC_MS };
    this.changed();
  }

  private ctrlC(): void {
    const now = Date.now();
    if (now - this.lastCtrlC < DOUBLE_CTRL_C_MS) return this.exit(130);
    this.lastCtrlC = now;
    if (this.task) this.task.abort.abort();
    if (this.running) this.interrupt();
    else if (this.picker) this.picker = undefined;
    else this.input.setText('');
    this.hint = { text: 'Press Ctrl+C again to exit', until: now + DOUBLE_CTRL_C_MS };
    this.changed();
  }

  /** Alt+P: the /model picker; the draft in the input stays as it is. */
  private pickModel(): void {
    if (this.busy) {
      this.hint = { text: 'Alt+P picks a model once the agent is idle (Esc stops it)', until: Date.now() + HINT_MS };
      return this.changed();
    }
    const model = findBuiltin('model');
    if (model) this.runBuiltin(model, '');
  }

  /** Alt+T: thinking off, or back on at the level it had before (medium if it started off). */
  private toggleThinking(): void {
    const session = this.session;
    if (session.thinking !== 'off') {
      this.thinkingBeforeOff = { level: session.thinking };
      session.thinking = 'off';
      this.transcript.note('info', 'Thinking off from the next request on (Alt+T turns it on).');
    } else {
      session.thinking = this.thinkingBeforeOff ? this.thinkingBeforeOff.level : 'medium';
      this.transcript.note('info', `Thinking on (${session.thinking ?? "the provider's default"}) from the next request on.`);
    }
    this.changed();
  }

  /** Ctrl+X Ctrl+K twice within 3 s: stops every running background task (commands and agents). */
  private stopBackground(): void {
    const tasks = this.host.backgroundTasks;
    const running = tasks?.list().filter((task) => task.state === 'running') ?? [];
    const now = Date.now();
    if (!tasks || running.length === 0) {
      this.hint = { text: 'No background task is running', until: now + HINT_MS };
    } else if (now - this.stopAllAskedAt > STOP_ALL_CONFIRM_MS) {
      this.stopAllAskedAt = now;
      this.hint = { text: `Ctrl+X Ctrl+K again to stop ${plural(running.length, 'background task')}`, until: now + STOP_ALL_CONFIRM_MS };
    } else {
      this.stopAllAskedAt = 0;
      this.hint = undefined;
      void tasks
        .killAll()
        .then((stopped) => this.transcript.note('info', `Stopped ${plural(stopped.length, 'background task')}: ${stopped.map((task) => task.id).join(', ')}.`))
        .catch((error: unknown) => this.transcript.note('error', this.describeError(error)));
    }
    this.changed();
  }

  private toggleTodos(): void {
    if (!this.showTodos && currentTodos(this.session).length === 0) {
      this.hint = { text: 'No task list yet: it shows here once the agent plans with todo_write', until: Date.now() + HINT_MS };
    } else {
      this.showTodos = !this.showTodos;
    }
    this.changed();
  }

  /** Esc / Ctrl+C while the agent works: abort the turn; queued messages return to the input. */
  interrupt(): void {
    const restore = this.session.takeQueued().map((queued) => queued.text);
    this.turn?.abort.abort();
    this.session.abort();
    if (restore.length > 0) this.input.setText([...restore, this.input.editor.text].filter(Boolean).join('\n'));
    this.changed();
  }

  // ---- submitting ----

  private submit(text: string, display?: string): void {
    const command = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
    const builtin = command ? findBuiltin(command[1]!) : undefined;
    if (command && builtin?.run) {
      this.transcript.user(text);
      this.changed();
      if (builtin.idleOnly && this.busy) return this.transcript.note('info', `/${command[1]} waits for an idle session: press Esc to stop the agent first.`);
      return this.runBuiltin(builtin, (command[2] ?? '').trim());
    }
    if (this.task && !this.running) {
      return this.transcript.note('info', `Still busy (${this.task.label.toLowerCase()}): send your message when it is done, or press Esc to stop it.`);
    }
    void this.send(text, display);
  }

  /**
   * Everything else goes through the session's one submit path; the chat only shows the outcome.
   * While the agent works the message steers it (core queues it); otherwise it starts a turn, which
   * Esc stops, preparation included.
   */
  private async send(text: string, display?: string): Promise<void> {
    const steering = this.running;
    // `!command` shows as a task of its own ("Running ..."), which Esc cancels.
    if (!steering && text.length > 1 && text.startsWith('!')) {
      return this.runTask(`Running ${text.slice(1).trim()}`, async (signal) => this.show(await this.host.submit({ text, typed: true, signal }), text));
    }
    const abort = steering ? undefined : new AbortController();
    if (abort) this.turn = { startedAt: Date.now(), abort };
    this.changed();
    try {
      // A message for the running turn is stopped with it (Esc) while it is still being prepared.
      const signal = abort?.signal ?? this.turn?.abort.signal;
      this.show(await this.host.submit({ text, display, typed: true, signal }), text, steering);
    } catch (error) {
      this.transcript.note('error', this.describeError(error));
    } finally {
      if (abort) {
        this.turn = undefined;
        this.armIdleNotice();
      }
      this.changed();
    }
  }

  /** A submission's outcome, drawn. */
  private show(outcome: SubmitOutcome, text: string, steering = false): void {
    switch (outcome.kind) {
      case 'turn': {
        const { turn } = outcome;
        for (const notice of turn.notices) this.transcript.note('info', notice);
        if (this.host.display.debug) this.transcript.note('info', debugLine(turn.result, Date.now() - (this.turn?.startedAt ?? Date.now())));
        if (turn.refused)
          this.transcript.note('error', `${turn.refused.stage === 'prompt' ? 'The prompt was blocked' : 'The answer was withheld'}: ${turn.refused.reason}`);
        return;
      }
      case 'shell':
        return this.transcript.commandResult(outcome.command, outcome.result);
      case 'note':
        this.transcript.user(text);
        this.picker = memoryNotePicker(this.host, text, (kind, line) => this.commandContext().note(kind, line));
        return;
      case 'command':
        return this.transcript.note('info', outcome.text);
      case 'refused':
        return this.transcript.note('error', outcome.reason);
      case 'stopped': {
        // Nothing was sent, so the prompt goes back to be edited, ahead of the messages queued
        // behind it (which interrupt() put back); a message meant for the stopped turn goes after.
        if (this.closed) return;
        const lines = steering ? [this.input.editor.text, text] : [text, this.input.editor.text];
        this.input.setText(lines.filter(Boolean).join('\n'));
        return;
      }
      case 'queued':
        return;
    }
  }

  /** Notification hooks hear when the agent has waited a minute for the person after a turn. */
  private armIdleNotice(): void {
    clearTimeout(this.idleTimer);
    if (this.closed) return;
    const typedBefore = this.input.lastTypedAt;
    this.idleTimer = setTimeout(() => {
      if (!this.closed && !this.busy && this.input.lastTypedAt === typedBefore) this.host.notify('Beans is waiting for your input');
    }, this.options.idleNoticeMs ?? IDLE_NOTICE_MS);
    this.idleTimer.unref?.();
  }

  private commandContext(): CommandContext {
    return {
      host: this.host,
      session: this.session,
      width: this.transcript.width,
      print: (lines: StyledLine[]) => {
        this.transcript.output(lines);
        this.changed();
      },
      note: (kind, text) => {
        this.transcript.note(kind, text);
        this.changed();
      },
      exit: (code) => this.exit(code),
      runTask: (label, task) => this.runTask(label, task),
      usage: this.usage,
      openPicker: (picker) => {
        this.picker = picker;
        this.changed();
      },
      clearScreen: () => {
        this.transcript.clear();
        this.redraw();
      },
      setInput: (text) => {
        this.input.setText(text);
        this.changed();
      },
      reloadConversation: () => {
        this.transcript.clear();
        this.attach(this.session);
        this.redraw();
      },
      editorMode: this.input.vim ? 'vim' : 'normal',
      setEditorMode: (mode) => this.input.setEditorMode(mode),
      theme: this.theme,
      setTheme: (theme) => {
        this.theme = theme;
        this.redraw();
      },
      ...(this.statusCommand ? { statusLine: this.statusCommand } : {}),
      writeTerminal: (data) => {
        if (!this.options.writeTerminal) return false;
        this.options.writeTerminal(data);
        return true;
      },
    };
  }

  private async runTask(label: string, task: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const abort = new AbortController();
    this.task = { label, startedAt: Date.now(), abort };
    this.changed();
    try {
      await task(abort.signal);
    } catch (error) {
      this.transcript.note(abort.signal.aborted ? 'interrupted' : 'error', abort.signal.aborted ? `${label}: cancelled.` : this.describeError(error));
    } finally {
      this.task = undefined;
      this.changed();
    }
  }

  private pickerKey(event: KeyEvent, picker: Picker): void {
    if (picker.searchable && (event.type === 'text' || event.name === 'backspace')) {
      this.picker = editQuery(picker, event.type === 'text' ? event : { type: 'backspace' });
      return this.changed();
    }
    if (event.type !== 'key') return;
    const key = picker.keys?.find((candidate) => candidate.name === event.name);
    if (key) {
      void Promise.resolve(key.press(picker)).then(
        (next) => {
          // Still the picker on screen (not closed or replaced meanwhile).
          if (this.picker === picker) this.picker = next;
          this.changed();
        },
        (error: unknown) => this.transcript.note('error', this.describeError(error)),
      );
      return;
    }
    if (event.name === 'up' || event.name === 'down') this.picker = movePicker(picker, event.name === 'up' ? -1 : 1);
    else if (event.name === 'pageup' || event.name === 'pagedown') this.picker = movePicker(picker, event.name === 'pageup' ? -10 : 10);
    else if (event.name === 'escape') this.picker = undefined;
    else if (event.name === 'enter') {
      this.picker = undefined;
      const item = shownItems(picker)[picker.selected];
      if (item) void Promise.resolve(picker.onSelect(item.value)).catch((error: unknown) => this.transcript.note('error', this.describeError(error)));
    }
    this.changed();
  }

  // ---- leaving ----

  exit(code: number): void {
    if (this.closed) return;
    this.closed = true;
    this.turn?.abort.abort();
    this.session.abort();
    this.task?.abort.abort();
    this.questions.denyAll('The user left the session.');
    this.emit();
    this.options.exit(code);
  }
}

function promptHistory(session: ChatSession): string[] {
  return session.messages
    .filter((message): message is UserMessage => message.role === 'user' && (message.origin === undefined || message.origin === 'prompt'))
    .map((message) => message.display ?? message.content);
}

/** `debug`: what a turn cost, for people chasing a slow or odd answer. */
function debugLine(result: AgentRunResult, elapsedMs: number): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
  const { usage } = result;
  return `debug · ${result.turns} request${result.turns === 1 ? '' : 's'} · ${seconds(elapsedMs)} in all, ${seconds(result.apiDurationMs)} waiting for the provider · ↑${usage.inputTokens} ↓${usage.outputTokens} tokens · stop: ${result.stopReason}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
