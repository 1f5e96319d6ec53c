/**
 * File checkpoints and rewind: the content every path had before a user turn changed it, kept in a
 * shadow git repository beside the session, and the rewind that puts it back. The composition root
 * wires it in as one part (runtime/checkpoints-part.ts) at the tool seam; nothing else calls it.
 */
export { CheckpointStore, DEFAULT_MAX_BYTES, DEFAULT_MAX_FILE_BYTES, type CheckpointStoreOptions } from './checkpoint-store.js';
export { checkpointToolHooks, type CheckpointToolHooks } from './tool-seam.js';
export { checkpointsDirOf, openSessionCheckpoints } from './session-checkpoints.js';
export type { CheckpointSummary, RewindFile, RewindOptions, RewindPlan, RewindResult, RewindTarget, TurnInfo } from './types.js';
export { checkpointRows, findUserTurn, rewindCode, userTurns, type CheckpointRow, type UserTurn } from './user-turns.js';
