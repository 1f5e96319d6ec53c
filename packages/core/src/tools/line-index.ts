import type { Stats } from 'node:fs';

/** A line start is remembered every this many lines: 1,000 entries for a million-line file. */
export const LINE_INDEX_STEP = 1_000;
/** Files remembered at once; the least recently read is forgotten first. */
const MAX_FILES = 32;

export interface LineStart {
  /** 1-based line number. */
  line: number;
  /** Byte position where that line starts. */
  byte: number;
}

/**
 * Where lines start in one version of one file, learnt while reading it, so the next window deep in
 * the same file starts from the nearest known line instead of scanning from the top. A version is
 * the file's identity and timestamps: any write makes a new (empty) index.
 */
export class LineIndex {
  /** starts[k] is the byte where line k * STEP + 1 begins; line 1 begins at 0. */
  private readonly starts: number[] = [0];
  totalLines: number | undefined;

  constructor(readonly version: string) {}

  /** The known line start at or before `line`. */
  nearest(line: number): LineStart {
    const k = Math.min(Math.floor((line - 1) / LINE_INDEX_STEP), this.starts.length - 1);
    return { line: k * LINE_INDEX_STEP + 1, byte: this.starts[k] };
  }

  /** Called for every line start a scan passes; only every STEP-th one, in order, is kept. */
  record(line: number, byte: number): void {
    if ((line - 1) % LINE_INDEX_STEP !== 0) return;
    const k = (line - 1) / LINE_INDEX_STEP;
    if (k === this.starts.length) this.starts.push(byte);
  }
}

const indexes = new Map<string, LineIndex>();

function versionOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** The index for the file at `absolute` as `stats` describe it now (a fresh one when it changed). */
export function lineIndexFor(absolute: string, stats: Stats): LineIndex {
  const version = versionOf(stats);
  let index = indexes.get(absolute);
  if (index?.version !== version) index = new LineIndex(version);
  // Re-inserting keeps the Map in least-recently-read order.
  indexes.delete(absolute);
  indexes.set(absolute, index);
  if (indexes.size > MAX_FILES) indexes.delete(indexes.keys().next().value!);
  return index;
}
