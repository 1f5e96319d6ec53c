import type { ChatAgent } from '../chat-agent.js';
import { allCommands } from './commands.js';
import { applyCompletion, matchCommands, pathToken, slashToken, type Completion } from './completion.js';
import * as ed from './editor.js';
import { HistorySearch } from './history-search.js';
import type { KeyEvent } from './keys.js';
import { VimInput } from './vim.js';

/** What a key in the input box asks the rest of the UI to do. */
export type InputAction =
  { type: 'submit'; text: string; display?: string } | { type: 'escape' } | { type: 'exit' } | { type: 'edit-draft' } | { type: 'stop-background' };

/** How many edits Ctrl+_ can take back. */
const UNDO_STEPS = 200;

/** A paste this long shows as one line in the transcript. */
const COLLAPSE_PASTE_LINES = 10;
const COLLAPSE_PASTE_CHARS = 1000;

/** The submitted text as the transcript shows it: each large paste as `[Pasted text · N lines]`. */
function collapsePastes(text: string, pastes: readonly string[]): string | undefined {
  let display = text;
  for (const paste of pastes) {
    const body = paste.trim();
    const at = display.indexOf(body);
    if (!body || at === -1) continue;
    const lines = body.split('\n').length;
    display = `${display.slice(0, at)}[Pasted text · ${lines} line${lines === 1 ? '' : 's'}]${display.slice(at + body.length)}`;
  }
  return display === text ? undefined : display;
}

/**
 * The prompt: text and cursor, history, multi-line entry, and completion of `/commands` and
 * `@paths`. Pure UI state; what a submitted line means is decided elsewhere.
 */
export class InputBox {
  editor: ed.Editor = ed.EMPTY_EDITOR;
  completion?: Completion;
  /** Ctrl+R's search of earlier prompts, while it is open. */
  search?: HistorySearch;
  /** Vim key bindings (`editorMode: "vim"`, `/vim`); undefined in the usual mode. */
  vim?: VimInput;
  /** When the user last typed a character; Enter resets it. */
  lastTypedAt = 0;
  /** A draft Ctrl+S put aside; it comes back once the next prompt is sent (Claude Code's prompt stash). */
  stashed?: string;
  private readonly history: ed.History;
  /** Large pastes in the text being typed, collapsed in the transcript when it is sent. */
  private pastes: string[] = [];
  private dismissedCompletionFor?: string;
  /** The previous key was Ctrl+X (the start of Ctrl+X Ctrl+E). */
  private ctrlX = false;
  /** The text before each edit, for Ctrl+_; typing is one step per word. */
  private undoSteps: ed.Editor[] = [];
  /** The last edit was typing, which the next typed character may join. */
  private typingWord = false;
  /** What the last cuts (Ctrl+W, Ctrl+U, Ctrl+K, Alt+Backspace) removed, for Ctrl+Y; cuts in a row join. */
  private killed = '';
  private lastKeyCut = false;
  private pathRequest = 0;

  constructor(
    private readonly host: ChatAgent,
    history: string[],
    private readonly changed: () => void,
  ) {
    this.history = new ed.History(history);
    if (host.display.editorMode === 'vim') this.vim = new VimInput();
  }

  setEditorMode(mode: 'normal' | 'vim'): void {
    this.vim = mode === 'vim' ? new VimInput() : undefined;
    this.changed();
  }

  handleKey(event: KeyEvent): InputAction | undefined {
    if (this.search) return this.searchKey(this.search, event);
    const vimmed = this.vim?.handleKey(event, this.editor, (editor, direction) => this.recall(editor, direction));
    if (vimmed) return this.set(vimmed, this.vim?.mode === 'insert');
    const afterCut = this.lastKeyCut;
    this.lastKeyCut = false;
    if (event.type === 'text') {
      this.ctrlX = false;
      this.lastTypedAt = Date.now();
      if (event.paste && (event.text.split('\n').length >= COLLAPSE_PASTE_LINES || event.text.length >= COLLAPSE_PASTE_CHARS)) this.pastes.push(event.text);
      if (event.paste) return this.set(ed.insert(this.editor, event.text));
      this.type(event.text);
      return undefined;
    }
    const { completion, editor } = this;
    // Ctrl+X Ctrl+E is readline's binding for the editor, as Ctrl+G is Claude Code's.
    const afterCtrlX = this.ctrlX;
    this.ctrlX = event.name === 'ctrl-x';
    if (afterCtrlX && event.name === 'ctrl-e') return { type: 'edit-draft' };
    if (afterCtrlX && event.name === 'ctrl-k') return { type: 'stop-background' };
    switch (event.name) {
      case 'enter':
        if (completion) {
          this.set(applyCompletion(editor, completion, completion.items[completion.selected]));
          if (completion.kind === 'path') return undefined;
        }
        if (this.editor.cursor === this.editor.text.length && this.editor.text.endsWith('\\')) {
          this.set(ed.insert(ed.backspace(this.editor), '\n'));
          return undefined;
        }
        return this.take();
      case 'newline':
        return this.set(ed.insert(editor, '\n'));
      case 'tab':
        return completion ? this.set(applyCompletion(editor, completion, completion.items[completion.selected])) : undefined;
      case 'up':
      case 'down':
        return this.vertical(event.name === 'up' ? -1 : 1);
      case 'escape':
        if (!completion) return { type: 'escape' };
        this.dismissedCompletionFor = editor.text;
        this.completion = undefined;
        this.changed();
        return undefined;
      case 'ctrl-d':
        return editor.text ? this.set(ed.deleteForward(editor)) : { type: 'exit' };
      case 'backspace':
        return this.set(ed.backspace(editor));
      case 'delete':
        return this.set(ed.deleteForward(editor));
      case 'left':
      case 'ctrl-b':
        return this.set(ed.left(editor));
      case 'right':
      case 'ctrl-f':
        return this.set(ed.right(editor));
      case 'home':
      case 'ctrl-a':
        return this.set(ed.home(editor));
      case 'end':
      case 'ctrl-e':
        return this.set(ed.end(editor));
      case 'word-left':
        return this.set(ed.wordLeft(editor));
      case 'word-right':
        return this.set(ed.wordRight(editor));
      case 'delete-word-back':
      case 'ctrl-w':
        return this.cut(ed.deleteWordBack(editor), afterCut);
      case 'ctrl-u':
        return this.cut(ed.killToLineStart(editor), afterCut);
      case 'ctrl-k':
        return this.cut(ed.killToLineEnd(editor), afterCut);
      case 'ctrl-y':
        return this.killed ? this.set(ed.insert(editor, this.killed)) : undefined;
      case 'ctrl-s':
        return this.stash();
      case 'undo':
        return this.undo();
      case 'ctrl-r':
        return void this.openSearch();
      case 'ctrl-g':
        return { type: 'edit-draft' };
      default:
        return undefined;
    }
  }

  /** Replaces the whole text (Ctrl+C clears; queued messages come back after Esc). */
  setText(text: string): void {
    this.search = undefined;
    if (!text) this.pastes = [];
    this.set(ed.editorOf(text));
  }

  /**
   * Ctrl+R: this process's history (newest) then the workspace's stored sessions. The matcher and
   * the files load only now; the search shows "reading history" until they are in.
   */
  private async openSearch(): Promise<void> {
    const search = new HistorySearch(this.changed);
    this.search = search;
    this.completion = undefined;
    this.changed();
    const stored = this.host.promptHistory().catch(() => [] as string[]);
    await search.load(stored.then((texts) => [...this.history.newestFirst(), ...texts])).catch(() => {
      search.loading = false;
      this.changed();
    });
  }

  private searchKey(search: HistorySearch, event: KeyEvent): undefined {
    const action = search.handleKey(event);
    if (!action) return undefined;
    this.search = undefined;
    if (action.type === 'accept') return this.set(ed.editorOf(action.text), false);
    this.changed();
    return undefined;
  }

  /**
   * Typed text, however the terminal batched the keys: a word and the spaces after it are one undo
   * step, and the next word starts another.
   */
  private type(text: string): void {
    let editor = this.editor;
    for (const char of text) {
      const before = editor.text.slice(0, editor.cursor);
      const startsWord = !/\s/.test(char) && (before === '' || /\s$/.test(before));
      if (!this.typingWord || startsWord) this.remember(editor);
      this.typingWord = true;
      editor = ed.insert(editor, char);
    }
    this.set(editor, true, true);
  }

  private remember(editor: ed.Editor): void {
    this.undoSteps.push(editor);
    if (this.undoSteps.length > UNDO_STEPS) this.undoSteps.shift();
  }

  /** A cut: what it removed is kept for Ctrl+Y, after what the cuts just before it kept. */
  private cut(next: ed.Editor, afterCut: boolean): undefined {
    const removed = this.editor.text.length - next.text.length;
    if (removed > 0) {
      // A cut backwards ends at the cursor it started from; a cut forwards starts there.
      const backwards = next.cursor < this.editor.cursor;
      const text = backwards ? this.editor.text.slice(next.cursor, this.editor.cursor) : this.editor.text.slice(next.cursor, next.cursor + removed);
      this.killed = afterCut ? (backwards ? text + this.killed : this.killed + text) : text;
    }
    this.lastKeyCut = true;
    return this.set(next);
  }

  /** Ctrl+S: the draft goes aside (a stashed one comes back in its place, so nothing is lost). */
  private stash(): undefined {
    const draft = this.editor.text;
    if (!draft.trim() && this.stashed === undefined) return undefined;
    const back = this.stashed ?? '';
    this.stashed = draft.trim() ? draft : undefined;
    return this.set(ed.editorOf(back));
  }

  /** Ctrl+_: the text and cursor before the last edit. */
  private undo(): undefined {
    const previous = this.undoSteps.pop();
    if (!previous) return undefined;
    this.editor = previous;
    this.typingWord = false;
    this.updateCompletion();
    this.changed();
    return undefined;
  }

  /** Empties the box and returns what was in it, remembered in the history. */
  private take(): InputAction | undefined {
    const text = this.editor.text.trim();
    this.completion = undefined;
    // Enter ends the typing: a prompt that appears now may take a key at once.
    this.lastTypedAt = 0;
    if (!text) {
      this.changed();
      return undefined;
    }
    this.history.add(text);
    this.vim?.reset();
    this.editor = this.stashed === undefined ? ed.EMPTY_EDITOR : ed.editorOf(this.stashed);
    this.stashed = undefined;
    this.undoSteps = [];
    const display = collapsePastes(text, this.pastes);
    this.pastes = [];
    this.changed();
    return display ? { type: 'submit', text, display } : { type: 'submit', text };
  }

  private vertical(direction: -1 | 1): undefined {
    const completion = this.completion;
    if (completion) {
      const count = completion.items.length;
      this.completion = { ...completion, selected: (completion.selected + direction + count) % count };
      this.changed();
      return undefined;
    }
    const next = this.recall(this.editor, direction);
    if (next !== this.editor) this.set(next, false);
    return undefined;
  }

  /** The line above or below, else the previous or next prompt of the history; the same editor when neither. */
  private recall(editor: ed.Editor, direction: -1 | 1): ed.Editor {
    const moved = direction < 0 ? ed.lineUp(editor) : ed.lineDown(editor);
    if (moved) return moved;
    const recalled = direction < 0 ? this.history.previous(editor.text) : this.history.next();
    return recalled === undefined ? editor : ed.editorOf(recalled);
  }

  /** Every change of the text goes through here; `undoRecorded`: typing, which keeps its own undo steps. */
  private set(editor: ed.Editor, complete = true, undoRecorded = false): undefined {
    if (!undoRecorded) {
      if (editor.text !== this.editor.text) this.remember(this.editor);
      this.typingWord = false;
    }
    this.editor = editor;
    if (complete) this.updateCompletion();
    else this.completion = undefined;
    this.changed();
    return undefined;
  }

  private updateCompletion(): void {
    const { editor } = this;
    if (this.dismissedCompletionFor === editor.text) return;
    this.dismissedCompletionFor = undefined;
    const slash = slashToken(editor);
    if (slash) {
      const items = matchCommands(allCommands(this.host.slashCommands()), slash.query);
      const exact = items.length === 1 && items[0].value === editor.text.slice(0, slash.end);
      this.completion = items.length > 0 && !exact ? { kind: 'slash', token: slash, items, selected: 0 } : undefined;
      return;
    }
    const path = pathToken(editor);
    this.completion = undefined;
    if (!path) return;
    const request = ++this.pathRequest;
    this.host
      .completePath(path.query)
      .then((paths) => {
        // A newer keystroke has asked again, or the word is gone: drop this answer.
        const token = pathToken(this.editor);
        if (request !== this.pathRequest || token?.start !== path.start) return;
        this.completion =
          paths.length > 0 ? { kind: 'path', token, items: paths.slice(0, 50).map((value) => ({ value: `@${value}` })), selected: 0 } : undefined;
        this.changed();
      })
      .catch(() => undefined);
  }
}
