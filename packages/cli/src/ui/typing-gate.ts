import type { KeyEvent } from './keys.js';

/**
 * A key answers a question only once the question has been on screen a moment and nobody is typing
 * at speed: no typing key (a letter, Enter, Backspace) within the gap before it. Issue 53 item 7: a
 * question that appeared while the user typed a follow-up took "then make sure..." as an answer, its
 * `a` meaning "always", once a fixed guard had passed. Ignored typing keys push the next answer
 * further out, however long the typing goes on, and are kept so the question can say so.
 */
const TYPING_GAP_MS = 600;
/** Once keys typed at the open question were ignored, the pause that shows the person has seen it is longer. */
const REARM_GAP_MS = 1200;
/** Keys that arrive this soon after a question appears were sent before anyone could read it. */
const ARM_MS = 250;
/** How much of the ignored typing is kept to show. */
const KEPT_CHARS = 40;

export class TypingGate {
  /** The end of what was typed and ignored ('' for nothing; ' ' when only Backspace was). */
  ignored = '';
  private readonly shownAt = Date.now();
  /** Keys were ignored after the first moment: the person went on typing at the question. */
  private typedAtQuestion = false;

  /** `lastTypingAt`: when the person last typed before the question appeared (the input box's last key). */
  constructor(private lastTypingAt = 0) {}

  /**
   * Whether `event` may answer now. A typing key (a letter, Enter, Backspace; `typing: false` for a
   * key that only selects, such as a digit in a list) counts as typing whether or not it may: `q`
   * then `y` in one breath is typing, not an answer. One that may not is recorded to show.
   */
  allows(event: KeyEvent, options: { typing?: boolean } = {}, now = Date.now()): boolean {
    const gap = this.typedAtQuestion ? REARM_GAP_MS : TYPING_GAP_MS;
    const armed = now - this.shownAt >= ARM_MS;
    const may = armed && now - this.lastTypingAt >= gap;
    const typing = options.typing ?? (event.type === 'text' || event.name === 'enter' || event.name === 'backspace');
    if (typing) this.lastTypingAt = now;
    if (may || !typing) return may;
    // Keys in the first moment may have waited in the terminal since before it appeared; they count
    // as typing, but only typing that goes on at the open question asks for the longer pause.
    if (armed) this.typedAtQuestion = true;
    const shown = event.type === 'text' ? event.text.replace(/\s+/g, ' ') : event.name === 'enter' ? '⏎' : '';
    this.ignored = (this.ignored + shown).slice(-KEPT_CHARS) || this.ignored || ' ';
    return false;
  }

  /** The line a question shows once it ignored keys, or undefined. */
  note(): string | undefined {
    if (this.ignored === '') return undefined;
    const typed = this.ignored.trim() === '' ? '' : ` ("${this.ignored.trim()}")`;
    return `Ignored the keys typed as this appeared${typed}: pause, then answer.`;
  }
}
