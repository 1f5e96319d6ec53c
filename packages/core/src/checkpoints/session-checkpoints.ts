import path from 'node:path';
import type { Workspace } from '../workspace/workspace.js';
import { CheckpointStore } from './checkpoint-store.js';

/** A session's checkpoints live beside its file (`<id>.checkpoints/`), so they go when the session goes. */
export function checkpointsDirOf(sessionsDir: string, sessionId: string): string {
  return path.join(sessionsDir, `${sessionId}.checkpoints`);
}

interface SessionCheckpointOptions {
  sessionsDir: string;
  sessionId: string;
  workspace: Pick<Workspace, 'root' | 'isGit'>;
  maxBytes?: number;
  maxFileBytes?: number;
}

/** The checkpoint store of one session (nothing is written until a turn changes a file). */
export function openSessionCheckpoints(options: SessionCheckpointOptions): CheckpointStore {
  return new CheckpointStore({
    dir: checkpointsDirOf(options.sessionsDir, options.sessionId),
    workspace: options.workspace,
    maxBytes: options.maxBytes,
    maxFileBytes: options.maxFileBytes,
  });
}
