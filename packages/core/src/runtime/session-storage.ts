import os from 'node:os';
import path from 'node:path';
import { sessionsDir, type BeansConfig } from '../config/index.js';
import { SessionStore } from '../session/index.js';
import { removeStaleTempFiles, workspaceTempDir } from '../tools/file-io.js';
import type { Workspace } from '../workspace/workspace.js';
import type { AgentSessionOptions } from './session-options.js';

export interface SessionStorageInput {
  workspace: Workspace;
  /** Where the sessions folder is (`$XDG_STATE_HOME`, `HOME`). */
  env: NodeJS.ProcessEnv;
  /** `sessions.dir`, a folder of its own for this workspace's sessions. */
  settings: Pick<BeansConfig, 'sessions'>;
  /** The environment tools run commands with: provider keys stripped, settings' pass-through kept. */
  toolEnv: NodeJS.ProcessEnv;
  options: Pick<AgentSessionOptions, 'persistSession'>;
}

export interface SessionStorage {
  /** Undefined when sessions are not persisted (`persistSession: false`). */
  store: SessionStore | undefined;
  /** The environment tools run commands with: provider keys stripped, settings' pass-through kept. */
  toolEnv: NodeJS.ProcessEnv;
  /** Where whole outputs of cut tool results of conversation `id` go. */
  outputDirOf(id: string | undefined): string | undefined;
  /** The session file of the live conversation, for hooks (`transcript_path`); '' when not persisted. */
  transcriptPathOf(id: string): string;
}

/** Part: where conversations are kept, and what tools write and run with. */
export function openSessionStorage(input: SessionStorageInput): SessionStorage {
  const { workspace } = input;
  const store = input.options.persistSession === false ? undefined : new SessionStore(sessionsDir(input.env, workspace.root, input.settings.sessions.dir));
  // Half-written files of a Beans process that was killed mid-write.
  removeStaleTempFiles(workspaceTempDir(workspace));
  return { store, toolEnv: input.toolEnv, outputDirOf: (id) => outputDirOf(store, id), transcriptPathOf: (id) => (store ? store.pathOf(id) : '') };
}

/** Whole outputs of cut tool results live beside the session file (or in the temp folder without one). */
function outputDirOf(store: SessionStore | undefined, id: string | undefined): string | undefined {
  if (!id) return undefined;
  return store ? path.join(store.dir, `${id}.outputs`) : path.join(os.tmpdir(), `beans-outputs-${id}`);
}
