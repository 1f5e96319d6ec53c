import { S, span, type StyledLine } from './styled.js';

/** A batch of finished rows, handed to Ink's <Static> once and never re-rendered. */
export interface Block {
  id: number;
  lines: StyledLine[];
}

export type EntryKind = 'header' | 'user' | 'assistant' | 'tool' | 'note' | 'output';

/**
 * A finished piece of the transcript kept as what it was made of, not as rows, so a redraw (after
 * a resize, or Ctrl+L) lays it out again at the new width.
 */
export interface Entry {
  kind: EntryKind;
  render(width: number): StyledLine[];
  /** The answer that is still streaming: a redraw restarts its stream instead. */
  live?: boolean;
}

/**
 * The finished part of the transcript: its entries, the rows they made, and which of those rows
 * the terminal has not been given yet. A blank row separates entries of different kinds.
 */
export class TranscriptRows {
  blocks: Block[] = [];
  private pending: StyledLine[] = [];
  private nextBlockId = 1;
  private entries: Entry[] = [];
  /** The kind of the newest entry (undefined on an empty transcript). */
  lastKind?: EntryKind;

  /** Entries added since `defer()`, not laid out yet. */
  private deferred?: Entry[];

  /** Adds a finished entry laid out at `width` (kept unlaid while deferring). */
  add(kind: EntryKind, render: (width: number) => StyledLine[], width: number): void {
    if (this.deferred) {
      const entry = { kind, render };
      this.entries.push(entry);
      this.deferred.push(entry);
      return;
    }
    this.addEntry({ kind, render });
    this.append(render(width));
  }

  /** Entries added from now on wait for `showNewest` (a resumed session's history). */
  defer(): void {
    this.deferred = [];
  }

  /**
   * Lays out the deferred entries from the newest back until about `rows` rows, and only those go
   * to the terminal: a resumed session of thousands of messages shows its prompt at once instead of
   * printing them all first. A dim row says how many were left out; Ctrl+L (redraw) prints them all.
   */
  showNewest(width: number, rows: number): void {
    const entries = this.deferred ?? [];
    this.deferred = undefined;
    const shown: { kind: EntryKind; lines: StyledLine[] }[] = [];
    let count = 0;
    let index = entries.length;
    while (index > 0 && count < rows) {
      const entry = entries[--index];
      const lines = entry.render(width);
      shown.unshift({ kind: entry.kind, lines });
      count += lines.length + 1;
    }
    if (index > 0) {
      this.begin('note');
      this.append([
        [span(`⋯ ${index} earlier ${index === 1 ? 'entry' : 'entries'} of this session not printed · Ctrl+L prints the whole conversation`, S.dim)],
      ]);
    }
    for (const { kind, lines } of shown) {
      this.begin(kind);
      this.append(lines);
    }
  }

  /** Starts an entry whose rows arrive later through `append` (a streaming answer). */
  addEntry(entry: Entry): void {
    this.entries.push(entry);
    this.begin(entry.kind);
  }

  append(rows: readonly StyledLine[]): void {
    for (const row of rows) this.pending.push(row);
  }

  /** Every entry laid out again at `width`, all rows pending again; live entries are left to the caller. */
  redraw(width: number): void {
    this.blocks = [];
    this.pending = [];
    this.lastKind = undefined;
    for (const entry of this.entries) {
      if (entry.live) continue;
      this.begin(entry.kind);
      this.append(entry.render(width));
    }
  }

  /** Drops the blocks already handed out: a fresh <Static> then prints only rows still pending. */
  forgetPrinted(): void {
    this.blocks = [];
  }

  /** Forgets every entry but the header. */
  clear(): void {
    this.entries = this.entries.filter((entry) => entry.kind === 'header');
  }

  /** The separator a new entry of `kind` needs (the caller adds its rows). */
  begin(kind: EntryKind): void {
    if (this.lastKind && !(kind === 'tool' && this.lastKind === 'tool')) this.pending.push([]);
    this.lastKind = kind;
  }

  /**
   * Moves rows committed since the last call into a new block; returns the block list. At most
   * `maxRows` move at once: when a fast stream delivers thousands of rows between two frames, Ink
   * would lay them all out in one frame (hundreds of MB for a 3,000-line answer); the rest follows
   * in the next frames.
   */
  takeBlocks(maxRows = Infinity): Block[] {
    if (this.pending.length > 0) {
      const lines = this.pending.length <= maxRows ? this.pending : this.pending.slice(0, maxRows);
      this.pending = this.pending.length <= maxRows ? [] : this.pending.slice(maxRows);
      this.blocks = [...this.blocks, { id: this.nextBlockId++, lines }];
    }
    return this.blocks;
  }

  /** Finished rows not yet handed to <Static>. */
  get backlog(): number {
    return this.pending.length;
  }
}
