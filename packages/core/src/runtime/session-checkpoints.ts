import os from 'node:os';
import path from 'node:path';
import type { ChatSession } from '../agent/chat-session.js';
import type { AgentMessage } from '../agent/types.js';
import {
  checkpointRows,
  checkpointsDirOf,
  checkpointToolHooks,
  CheckpointStore,
  findUserTurn,
  rewindCode,
  type CheckpointRow,
  type CheckpointToolHooks,
  type RewindResult,
  type TurnInfo,
} from '../checkpoints/index.js';
import { UsageError } from '../errors.js';
import type { BeansConfig } from '../config/index.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Live } from './live.js';
import type { SessionStorage } from './session-storage.js';

export interface SessionCheckpointsInput {
  workspace: Workspace;
  settings: BeansConfig['checkpoints'];
  /** Each conversation's checkpoints live beside its session file. */
  storage: Pick<SessionStorage, 'store'>;
  live: Live;
}

export interface SessionRewindOptions {
  /** Put the files back as they were at the message (default: true unless `conversation` alone is asked). */
  code?: boolean;
  /** Cut the conversation at the message, which goes back to the input box. */
  conversation?: boolean;
  dryRun?: boolean;
  /** Overwrite files changed by hand since Beans last wrote them. */
  force?: boolean;
}

export interface SessionRewindResult {
  code?: RewindResult;
  /** The message cut from the conversation (what the user typed, for the input box). */
  conversation?: { text: string; removedMessages: number };
}

/** The live conversation's checkpoints, as front ends (chat, the SDK protocol, ACP) reach them. */
export interface SessionCheckpoints {
  /** False with `checkpoints.enabled: false`: nothing is kept, and only the conversation can be rewound. */
  readonly enabled: boolean;
  /** The tool seam the session's permission chain and after-call chain run. */
  readonly seam: CheckpointToolHooks | undefined;
  /** The user messages of the live conversation and the rewinds made, with what changed from each. */
  list(): Promise<CheckpointRow[]>;
  /** Rewinds the code, the conversation, or both to a user message (uuid or unique prefix) or a rewind's id. */
  rewind(id: string, options?: SessionRewindOptions): Promise<SessionRewindResult>;
}

/**
 * Part: file checkpoints. Wraps tool execution at one seam (after the permission check allowed a
 * call, and after it ran) and reads which user message the call serves from the live conversation;
 * each conversation has its own store beside its session file, so it goes when the session goes.
 */
export function createSessionCheckpoints(input: SessionCheckpointsInput): SessionCheckpoints {
  const { workspace, settings, storage, live } = input;
  const enabled = settings.enabled !== false;
  const stores = new Map<string, CheckpointStore>();
  const storeOf = (session: ChatSession): CheckpointStore => {
    let store = stores.get(session.id);
    if (!store) {
      const dir = storage.store ? checkpointsDirOf(storage.store.dir, session.id) : path.join(os.tmpdir(), `beans-checkpoints-${session.id}`);
      store = new CheckpointStore({ dir, workspace, maxBytes: settings.maxBytes, maxFileBytes: settings.maxFileBytes });
      stores.set(session.id, store);
    }
    return store;
  };
  // The turn a call belongs to is the conversation's last user message; subagents' calls count for it too.
  const current = (): CheckpointStore | undefined => {
    const session = live.session;
    const store = storeOf(session);
    const turn = lastTurn(session.messages);
    if (turn) store.startTurn(turn);
    return turn ? store : undefined;
  };
  const seam = enabled ? checkpointToolHooks(current, workspace, (problem) => live.notices([problem])) : undefined;
  return {
    enabled,
    seam,
    list: () => checkpointRows(enabled ? storeOf(live.session) : undefined, live.session.messages),
    async rewind(id, options = {}) {
      const session = live.session;
      const wantsConversation = options.conversation === true;
      const wantsCode = options.code ?? !wantsConversation;
      if (session.isRunning && !options.dryRun) throw new UsageError('The agent is still working; stop it (Esc) before rewinding.');
      const result: SessionRewindResult = {};
      if (wantsCode) {
        if (!enabled) throw new UsageError('File checkpoints are off (checkpoints.enabled is false), so only the conversation can be rewound.');
        result.code = await rewindCode(storeOf(session), session.messages, id, { dryRun: options.dryRun, force: options.force });
        if (!result.code.canRewind) return result;
      }
      if (wantsConversation) {
        const turn = findUserTurn(session.messages, id);
        const removedMessages = session.messages.length - turn.index;
        if (!options.dryRun) {
          session.messages.splice(turn.index);
          live.logs.get(session)?.recordMeta({ kind: 'rewind', uuid: turn.uuid });
        }
        result.conversation = { text: turn.text, removedMessages };
      }
      return result;
    },
  };
}

/** Which turn a file change belongs to: the newest user message that is not a loaded skill's body. */
function lastTurn(messages: readonly AgentMessage[]): TurnInfo | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role !== 'user' || !message.uuid || message.origin === 'skill') continue;
    const text = message.display ?? message.content;
    return { id: message.uuid, at: message.timestamp, label: text.split('\n')[0].slice(0, 120) };
  }
  return undefined;
}

/** What the Claude Agent SDK's `rewindFiles()` returns (the `rewind_files` control response). */
export interface RewindFilesResult {
  canRewind: boolean;
  error?: string;
  filesChanged?: string[];
  insertions?: number;
  deletions?: number;
}

const NOT_ENABLED = 'File checkpointing is not enabled: pass enableFileCheckpointing: true to query() (or set checkpoints.enabled).';

/**
 * `rewindFiles(userMessageId, { dryRun })` as Claude Code answers it: the code only (the conversation
 * stays), never a throw. Files changed by hand since Beans wrote them are not overwritten: the answer
 * is `canRewind: false` with an error naming them (the SDK has no way to ask, and no --force).
 */
export async function rewindFilesResult(checkpoints: SessionCheckpoints, userMessageId: string, dryRun: boolean): Promise<RewindFilesResult> {
  if (!checkpoints.enabled) return { canRewind: false, error: NOT_ENABLED };
  try {
    const { code } = await checkpoints.rewind(userMessageId, { code: true, dryRun });
    if (!code) return { canRewind: false, error: NOT_ENABLED };
    if (!code.canRewind) return { canRewind: false, ...(code.error ? { error: code.error } : {}) };
    const failed = code.failed ?? [];
    return {
      canRewind: true,
      ...(failed.length ? { error: `Could not restore ${failed.map((failure) => `${failure.path} (${failure.reason})`).join(', ')}.` } : {}),
      filesChanged: code.filesChanged,
      insertions: code.insertions,
      deletions: code.deletions,
    };
  } catch (error) {
    return { canRewind: false, error: error instanceof Error ? error.message : String(error) };
  }
}
