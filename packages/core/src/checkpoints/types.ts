/** The user message a turn answers: its checkpoint is keyed by the message's uuid. */
export interface TurnInfo {
  id: string;
  /** The message's timestamp. */
  at: number;
  /** Its first line, for listings. */
  label: string;
}

/** A rewind goes back to a checkpoint by id, or to a user message (uuid and time) that changed nothing itself. */
export type RewindTarget = string | { id: string; at: number };

export interface CheckpointSummary {
  id: string;
  kind: 'turn' | 'rewind';
  at: number;
  label: string;
  /** False once dropped to stay under checkpoints.maxBytes. */
  available: boolean;
  files: { path: string; action: 'create' | 'delete' | 'modify'; insertions?: number; deletions?: number; restorable: boolean }[];
  insertions?: number;
  deletions?: number;
}

/** One path a rewind changes, with the lines it adds and removes going back. */
export interface RewindFile {
  path: string;
  /** `create`: the file was deleted and comes back; `delete`: it was created and goes. */
  action: 'restore' | 'create' | 'delete';
  insertions: number;
  deletions: number;
  /** The file changed after Beans last wrote it (by hand, or by another program). */
  changedByHand: boolean;
  /** False when its content was over checkpoints.maxFileBytes and was not kept. */
  restorable: boolean;
}

export interface RewindPlan {
  canRewind: boolean;
  error?: string;
  /** The message (or rewind) gone back to. */
  label: string;
  files: RewindFile[];
  /** Claude Code's fields for `rewind_files`. */
  filesChanged: string[];
  insertions: number;
  deletions: number;
  changedByHand: string[];
  notRestorable: string[];
}

export interface RewindOptions {
  dryRun?: boolean;
  /** Overwrite files changed by hand since Beans last wrote them. */
  force?: boolean;
}

export interface RewindResult extends RewindPlan {
  /** The checkpoint holding the state before this rewind: rewinding to it undoes the rewind. */
  undoId?: string;
  /** Files that could not be put back, with why. */
  failed?: { path: string; reason: string }[];
}
