import { gitBranch, type UsageTotals, type AgentEvent, type AgentRunResult, type ChatSession, type SubmitOutcome, type UserMessage } from '@beans/core';
import type { ThemeName } from './theme.js';
import type { ChatAgent } from '../chat-agent.js';
import { AskQueue } from './ask-queue.js';
import { ChatKeys } from './chat-keys.js';
import type { ChatView } from './chat-view.js';
import type { ControllerOptions } from './controller-options.js';
export type { ControllerOptions } from './controller-options.js';
import { commandContext } from './command-context.js';
import { StatusCommand } from './status-command.js';
import { statusLineInput } from './statusline-command.js';
import { findBuiltin, type Builtin } from './commands.js';
import { FrameClock } from './frame-clock.js';
import { InputBox } from './input-box.js';
import { memoryNotePicker } from './memory-note.js';
import type { KeyEvent } from './keys.js';
import type { Picker } from './picker.js';
import { S, span, type StyledLine } from './styled.js';
import { TranscriptStore, type Block } from './transcript.js';
import { taskProgressOf } from './task-view.js';
import { followSchedules } from './schedule-view.js';

/** Claude Code notifies after a minute of waiting for input; so does Beans. */
export const IDLE_NOTICE_MS = 60_000;
/** Finished rows handed to the terminal per frame; a burst of more is spread over frames. */
const MAX_ROWS_PER_FRAME = 100;

/**
 * The chat UI's state and behaviour, apart from drawing: what Enter, Esc and Ctrl+C mean at each
 * moment, prompts and queued messages, built-in commands, pickers. It talks to the agent only
 * through the ChatAgent and its session.
 */
export class ChatController implements ChatView {
  readonly transcript: TranscriptStore;
  readonly input: InputBox;
  readonly questions: AskQueue;
  blocks: Block[] = [];
  /** The live area as the view last laid it out (a resize erases that many rows, as reflowed). */
  liveLines: StyledLine[] = [];
  picker?: Picker;
  task?: { label: string; startedAt: number; abort: AbortController };
  hint?: { text: string; until: number };
  /** Ctrl+T: the agent's task list stays above the input. */
  showTodos = false;
  /** `?` on an empty input: the keys are listed under it until the next key. */
  showKeys = false;
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

  private waitingSince?: { ask: object; at: number };
  /** When a turn that this view did not start was first seen running. */
  private othersTurnSince?: number;
  private idleTimer?: NodeJS.Timeout;
  /**
   * A resize is settling (run-chat): the view being replaced writes nothing, so finished rows wait
   * for the fresh view instead of being handed to the old one and lost with it.
   */
  private outputPaused = false;
  private readonly clock = new FrameClock(
    () => {
      if (!this.outputPaused) this.blocks = this.transcript.takeBlocks(MAX_ROWS_PER_FRAME);
    },
    () => !this.outputPaused && this.transcript.backlog > 0,
  );
  private readonly cleanups: (() => void)[] = [];
  private readonly keys: ChatKeys;
  private unsubscribeSession?: () => void;

  constructor(
    readonly host: ChatAgent,
    /** How the chat reaches its terminal (run-chat): the key bindings and commands read them too. */
    readonly options: ControllerOptions,
  ) {
    this.session = host.session;
    this.keys = new ChatKeys(this);
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
    host.setAsker((request, signal) => this.questions.ask(request, signal));
    this.cleanups.push(host.onSessionChange((session) => this.attach(session, true)));
    // A background task starting or ending changes the status line's count.
    const unsubscribeTasks = host.backgroundTasks?.subscribe(() => this.changed(false));
    if (unsubscribeTasks) this.cleanups.push(unsubscribeTasks);
    this.cleanups.push(followSchedules(host, this.transcript, () => this.changed(false)));
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
  refreshFooter(): void {
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

  /** The view is muted until resized(): rows finished meanwhile stay pending for the next view. */
  pauseOutput(): void {
    this.outputPaused = true;
  }

  /**
   * After a resize (run-chat erased the live area as the terminal reflowed it): what was printed
   * stays the terminal's; rows not printed yet and everything new are laid out at `width`, and the
   * fresh view starts with no rows to print again.
   */
  resized(width: number): void {
    if (this.closed) return;
    this.outputPaused = false;
    this.transcript.setWidth(width);
    this.transcript.forgetPrinted();
    this.blocks = this.transcript.takeBlocks(MAX_ROWS_PER_FRAME);
    this.emit();
  }

  /**
   * A clean redraw (Ctrl+L, or a resize in the test renderer): the whole transcript is laid out again at `width`
   * and handed to a fresh view on a cleared screen, so no row drawn at the old width survives.
   */
  redraw(width = this.transcript.width): void {
    if (this.closed) return;
    this.outputPaused = false;
    this.transcript.redraw(width);
    this.blocks = [];
    this.clock.cancel();
    this.options.repaint?.();
    this.emit();
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

  /** Tokens and cost of the whole conversation: the stored turns (after --continue or /resume) plus this process's. */
  get usage(): UsageTotals {
    return this.session.totalUsage;
  }

  get activity(): { label: string; startedAt: number } | undefined {
    if (this.task) return this.task;
    // A turn another client started (an attached view) shows as working too, from when it was seen.
    const startedAt = this.turn?.startedAt ?? (this.session.isRunning ? (this.othersTurnSince ??= Date.now()) : undefined);
    if (!this.session.isRunning) this.othersTurnSince = undefined;
    if (startedAt === undefined) return undefined;
    const ask = this.questions.current;
    if (!ask) return { label: 'Working', startedAt };
    // The wait counts from when this question appeared, not from the start of the turn.
    if (this.waitingSince?.ask !== ask) this.waitingSince = { ask, at: Date.now() };
    return { label: 'Waiting for your answer', startedAt: this.waitingSince.at };
  }

  // ---- sessions ----

  private attach(session: ChatSession, replaced = false): void {
    this.unsubscribeSession?.();
    this.session = session;
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

  handleKey = (event: KeyEvent): void => this.clock.batch(() => this.keys.route(event));

  /** A built-in the user asked for (typed, or its key); it may change what the status line shows (/model, /rename, /agent), which runs again after. */
  runBuiltin(builtin: Builtin, args: string): void {
    void Promise.resolve(builtin.run?.(args, commandContext(this)))
      .then(() => this.refreshFooter())
      .catch((error: unknown) => this.transcript.note('error', this.describeError(error)));
  }

  /** A built-in command as if typed, without showing it (`beans -r` opens /resume). */
  runCommand(name: string, args = ''): void {
    void Promise.resolve(findBuiltin(name)?.run?.(args, commandContext(this))).catch((error: unknown) =>
      this.transcript.note('error', this.describeError(error)),
    );
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

  /** What Enter sent from the input: a built-in of the chat's, else through the session's submit path. */
  submitTyped(text: string, display?: string): void {
    const command = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
    const builtin = command ? findBuiltin(command[1]) : undefined;
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
        this.picker = memoryNotePicker(this.host, text, (kind, line) => commandContext(this).note(kind, line));
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
      if (!this.closed && !this.busy && this.input.lastTypedAt === typedBefore) void this.host.notify('Beans is waiting for your input').catch(() => undefined);
    }, this.options.idleNoticeMs ?? IDLE_NOTICE_MS);
    this.idleTimer.unref?.();
  }

  /** A job of a built-in (`!command`, /compact's summary...) shown as the activity, which Esc cancels. */
  async runTask(label: string, task: (signal: AbortSignal) => Promise<void>): Promise<void> {
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

  /** /rewind of the conversation: the transcript is drawn again from the session's messages. */
  reloadConversation(): void {
    this.transcript.clear();
    this.attach(this.session);
    this.redraw();
  }

  // ---- leaving ----

  exit(code: number): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.options.leaveRunning) {
      this.turn?.abort.abort();
      this.session.abort();
      this.task?.abort.abort();
      this.questions.denyAll('The user left the session.');
    }
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
