import type { StyledLine } from './styled.js';

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

  /** Adds a finished entry laid out at `width`. */
  add(kind: EntryKind, render: (width: number) => StyledLine[], width: number): void {
    this.addEntry({ kind, render });
    this.append(render(width));
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
