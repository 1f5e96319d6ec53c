import os from 'node:os';
import path from 'node:path';
import type { SessionStore } from '../session/index.js';
import { removeStaleTempFiles, workspaceTempDir } from '../tools/file-io.js';
import { programEnvironment, sessionStore, type RuntimeBase } from './base.js';
import type { AgentSessionOptions } from './session-options.js';

export interface SessionStorage {
  /** Undefined when sessions are not persisted (`persistSession: false`). */
  store: SessionStore | undefined;
  /** The environment tools run commands with: provider keys stripped, settings' pass-through kept. */
  toolEnv: NodeJS.ProcessEnv;
  /** Where whole outputs of cut tool results of conversation `id` go. */
  outputDirOf(id: string | undefined): string | undefined;
}

/** Part 6: where conversations are kept, and what tools write and run with. */
export function openSessionStorage(base: RuntimeBase, options: AgentSessionOptions): SessionStorage {
  const values = base.config.values;
  const store = options.persistSession === false ? undefined : sessionStore(base);
  // Half-written files of a Beans process that was killed mid-write.
  removeStaleTempFiles(workspaceTempDir(base.workspace));
  const toolEnv = programEnvironment(base, values.tools.env.passThrough);
  return { store, toolEnv, outputDirOf: (id) => outputDirOf(store, id) };
}

/** Whole outputs of cut tool results live beside the session file (or in the temp folder without one). */
function outputDirOf(store: SessionStore | undefined, id: string | undefined): string | undefined {
  if (!id) return undefined;
  return store ? path.join(store.dir, `${id}.outputs`) : path.join(os.tmpdir(), `beans-outputs-${id}`);
}
