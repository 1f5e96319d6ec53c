import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileState } from './file-state.js';

/** One path's change within a checkpoint: what it held before the first change, and after the last. */
interface FileChange {
  before: FileState;
  /** Unknown until the change finished (a crash mid-tool leaves it unset). */
  after?: FileState;
}

/**
 * What one user message's turn changed (`kind: 'turn'`, `id` = the message's uuid), or what a rewind
 * overwrote (`kind: 'rewind'`, so the rewind can be undone). Made lazily at the turn's first change.
 */
export interface Checkpoint {
  id: string;
  kind: 'turn' | 'rewind';
  /** The user message's time (a rewind's own time): checkpoints at or after a message are what rewinding to it undoes. */
  at: number;
  /** The message's first line, or what the rewind went back to. */
  label: string;
  files: Map<string, FileChange>;
  /** Dropped to stay under `checkpoints.maxBytes`: it can no longer be rewound to. */
  dropped: boolean;
}

export type LogRecord =
  | { type: 'checkpoint'; id: string; kind: Checkpoint['kind']; at: number; label: string }
  | { type: 'before'; checkpoint: string; path: string; state: FileState }
  | { type: 'after'; checkpoint: string; path: string; state: FileState }
  | { type: 'dropped'; checkpoint: string };

/**
 * The checkpoints of one session, one JSON line per record, appended synchronously: a `before` line
 * is in the kernel before the tool that changes the file runs, so kill -9 loses no checkpoint.
 */
export class CheckpointLog {
  readonly checkpoints: Checkpoint[] = [];
  private readonly byId = new Map<string, Checkpoint>();

  constructor(readonly file: string) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        continue; // a line cut by a crash: everything before it stands
      }
      this.apply(record);
    }
  }

  get(id: string): Checkpoint | undefined {
    return this.byId.get(id);
  }

  append(record: LogRecord): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    appendFileSync(this.file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    this.apply(record);
  }

  private apply(record: LogRecord): void {
    if (record.type === 'checkpoint') {
      if (this.byId.has(record.id)) return;
      const checkpoint: Checkpoint = { id: record.id, kind: record.kind, at: record.at, label: record.label, files: new Map(), dropped: false };
      this.checkpoints.push(checkpoint);
      this.byId.set(record.id, checkpoint);
      return;
    }
    const checkpoint = this.byId.get(record.checkpoint);
    if (!checkpoint) return;
    if (record.type === 'dropped') checkpoint.dropped = true;
    else if (record.type === 'before') {
      if (!checkpoint.files.has(record.path)) checkpoint.files.set(record.path, { before: record.state });
    } else {
      const change = checkpoint.files.get(record.path);
      if (change) change.after = record.state;
    }
  }
}
