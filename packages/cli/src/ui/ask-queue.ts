import { summarizeCall, type ChatSession, type PermissionRequest } from '@beans/core';
import type { AskAnswer } from '../chat-agent.js';
import type { PendingAsk } from './confirm-view.js';
import * as ed from './editor.js';
import type { KeyEvent } from './keys.js';
import { TypingGate } from './typing-gate.js';

const CHOICES: PendingAsk['selected'][] = ['once', 'always', 'deny'];

export interface AskQueueHooks {
  session(): ChatSession;
  /** When the user last typed in the input box. */
  lastTypedAt(): number;
  /** The tool line shows "awaiting approval" while its question is open. */
  setWaiting(callId: string, waiting: boolean): void;
  changed(): void;
}

/**
 * Tool calls waiting for the user's answer, first come first asked: `y` once, `a` always this
 * session, `n` no (then an optional reason for the model), Esc no. An interrupted turn answers
 * its open questions with no.
 */
export class AskQueue {
  asks: PendingAsk[] = [];

  constructor(private readonly hooks: AskQueueHooks) {}

  get current(): PendingAsk | undefined {
    return this.asks[0];
  }

  ask(request: PermissionRequest, signal: AbortSignal): Promise<AskAnswer> {
    return new Promise<AskAnswer>((resolve) => {
      if (signal.aborted) return resolve({ decision: 'deny', reason: 'The user interrupted the turn.' });
      const summary = summarizeCall(request.tool, request.input);
      const onAbort = () => pending.resolve({ decision: 'deny', reason: 'The user interrupted the turn.' });
      const pending: PendingAsk = {
        request,
        summary,
        loading: true,
        stage: 'choose',
        selected: 'once',
        scroll: 0,
        reason: ed.EMPTY_EDITOR,
        // Keys typed at speed never answer it (typing-gate.ts), from the input box's typing on.
        gate: new TypingGate(this.hooks.lastTypedAt()),
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          this.asks = this.asks.filter((entry) => entry !== pending);
          this.hooks.setWaiting(request.call.id, false);
          resolve(answer);
          this.hooks.changed();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.asks = [...this.asks, pending];
      this.hooks.setWaiting(request.call.id, true);
      this.hooks.changed();
      void this.loadPreview(pending);
    });
  }

  /** Answers every open question with no (the user is leaving). */
  denyAll(reason: string): void {
    for (const ask of this.asks) ask.resolve({ decision: 'deny', reason });
  }

  /**
   * A letter answers at once (y once, a always, n no and then an optional reason), as in Claude
   * Code; arrows move the highlight and Enter takes it; Esc denies and stops the turn. A preview
   * taller than the screen scrolls with Up/Down, PgUp/PgDn, Home/End. Keys that arrive before the
   * prompt could be read (typed ahead, or right as it appears) answer nothing: a word being typed
   * must never approve `rm -rf`.
   */
  handleKey(event: KeyEvent): void {
    const ask = this.asks[0];
    if (!ask) return;
    if (ask.stage === 'reason') return this.reasonKey(event, ask);
    if (event.type === 'key' && event.name === 'escape') return ask.resolve({ decision: 'deny', reason: 'The user stopped the turn.', interrupt: true });
    // Scrolling answers nothing, so it works from the first moment.
    if (event.type === 'key' && this.scroll(ask, event.name)) return this.hooks.changed();
    if (!ask.gate.allows(event)) return this.hooks.changed();
    if (event.type === 'key') {
      if (event.name === 'enter') return this.confirm(ask);
      const step = event.name === 'left' || event.name === 'up' ? -1 : event.name === 'right' || event.name === 'down' || event.name === 'tab' ? 1 : 0;
      if (step !== 0) {
        ask.selected = CHOICES[(CHOICES.indexOf(ask.selected) + step + CHOICES.length) % CHOICES.length]!;
        this.hooks.changed();
      }
      return;
    }
    // One letter alone; a run of text ("yes", a paste) is not an answer.
    const chosen = ({ y: 'once', a: 'always', n: 'deny' } as const)[event.text.toLowerCase() as 'y' | 'a' | 'n'];
    if (chosen && !event.paste) {
      ask.selected = chosen;
      this.confirm(ask);
    }
  }

  /** Moves the preview's window when it is taller than the screen; false when the key is not a scroll. */
  private scroll(ask: PendingAsk, key: string): boolean {
    const view = ask.view;
    if (!view || view.total <= view.rows) return false;
    const page = Math.max(1, view.rows - 1);
    const steps: Record<string, number> = { up: -1, down: 1, pageup: -page, pagedown: page, home: -view.total, end: view.total };
    const step = steps[key];
    if (step === undefined) return false;
    ask.scroll = Math.max(0, Math.min(view.total - view.rows, ask.scroll + step));
    return true;
  }

  private confirm(ask: PendingAsk): void {
    if (ask.selected === 'deny') {
      ask.stage = 'reason';
      return this.hooks.changed();
    }
    ask.resolve({ decision: ask.selected });
  }

  private reasonKey(event: KeyEvent, ask: PendingAsk): void {
    if (event.type === 'text') ask.reason = ed.insert(ask.reason, event.text.replace(/\n/g, ' '));
    else if (event.name === 'enter') return ask.resolve({ decision: 'deny', reason: ask.reason.text.trim() || undefined });
    else if (event.name === 'escape') return ask.resolve({ decision: 'deny' });
    else if (event.name === 'backspace') ask.reason = ed.backspace(ask.reason);
    else if (event.name === 'left') ask.reason = ed.left(ask.reason);
    else if (event.name === 'right') ask.reason = ed.right(ask.reason);
    else if (event.name === 'ctrl-u') ask.reason = ed.EMPTY_EDITOR;
    this.hooks.changed();
  }

  private async loadPreview(pending: PendingAsk): Promise<void> {
    const { tool, input } = pending.request;
    const session = this.hooks.session();
    try {
      pending.preview = await tool.preview?.(input, { workspace: session.workspace, state: session.toolState });
    } catch (error) {
      pending.previewError = error instanceof Error ? error.message : String(error);
    }
    pending.loading = false;
    this.hooks.changed();
  }
}
