import type { AgentMessage } from '../agent/types.js';
import { UsageError } from '../errors.js';
import type { CheckpointStore } from './checkpoint-store.js';
import type { CheckpointSummary, RewindOptions, RewindResult } from './types.js';

/** A user message a session can be rewound to: its uuid, time and what the user typed. */
export interface UserTurn {
  uuid: string;
  at: number;
  /** What the user typed (`/review 42` for an expanded command). */
  text: string;
  /** Its position in the conversation. */
  index: number;
}

/** The user messages of a conversation that start turns (a loaded skill's body is not one). */
export function userTurns(messages: readonly AgentMessage[]): UserTurn[] {
  const turns: UserTurn[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'user' || !message.uuid || message.origin === 'skill') return;
    turns.push({ uuid: message.uuid, at: message.timestamp, text: message.display ?? message.content, index });
  });
  return turns;
}

/** The user message with this uuid, or the only one starting with it. */
export function findUserTurn(messages: readonly AgentMessage[], id: string): UserTurn {
  const turns = userTurns(messages);
  const exact = turns.find((turn) => turn.uuid === id);
  if (exact) return exact;
  const matches = turns.filter((turn) => turn.uuid.startsWith(id));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw new UsageError(`"${id}" matches ${matches.length} user messages; give more of the uuid.`);
  throw new UsageError(`No user message ${id} in this session; \`beans checkpoints list\` shows them.`);
}

/** One line of `beans checkpoints list` and of `/rewind`: a user message with what changed from it on, or a rewind. */
export interface CheckpointRow {
  id: string;
  kind: 'message' | 'rewind';
  at: number;
  text: string;
  /** False when the code cannot go back there (the checkpoint was dropped for checkpoints.maxBytes). */
  available: boolean;
  /** What this turn (or rewind) itself changed. */
  files: CheckpointSummary['files'];
  insertions: number;
  deletions: number;
}

/** The user messages of a conversation and the rewinds made, oldest first, with what each changed. */
export async function checkpointRows(store: CheckpointStore | undefined, messages: readonly AgentMessage[]): Promise<CheckpointRow[]> {
  const summaries = store ? await store.list({ lines: true }) : [];
  const byId = new Map(summaries.map((summary) => [summary.id, summary]));
  const rows: CheckpointRow[] = userTurns(messages).map((turn) => {
    const summary = byId.get(turn.uuid);
    return {
      id: turn.uuid,
      kind: 'message',
      at: turn.at,
      text: turn.text,
      available: summary?.available ?? true,
      files: summary?.files ?? [],
      insertions: summary?.insertions ?? 0,
      deletions: summary?.deletions ?? 0,
    };
  });
  for (const summary of summaries) {
    if (summary.kind !== 'rewind') continue;
    rows.push({
      id: summary.id,
      kind: 'rewind',
      at: summary.at,
      text: summary.label,
      available: summary.available,
      files: summary.files,
      insertions: summary.insertions ?? 0,
      deletions: summary.deletions ?? 0,
    });
  }
  // A message dropped from the conversation by an earlier rewind keeps no row, but its changes still count.
  const earliest = rows.filter((row) => row.kind === 'message' && !row.available).map((row) => row.at);
  const oldestDropped = earliest.length ? Math.max(...earliest) : -Infinity;
  for (const row of rows) if (row.at <= oldestDropped) row.available = false;
  return rows.sort((a, b) => a.at - b.at);
}

/** Rewinds the code to a user message of this conversation (by uuid or a unique prefix), or to a rewind's checkpoint. */
export function rewindCode(store: CheckpointStore, messages: readonly AgentMessage[], id: string, options: RewindOptions = {}): Promise<RewindResult> {
  if (store.has(id) && id.startsWith('rewind-')) return store.rewind(id, options);
  const turn = findUserTurn(messages, id);
  return store.rewind({ id: turn.uuid, at: turn.at }, options);
}
