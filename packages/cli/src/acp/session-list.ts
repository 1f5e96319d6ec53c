import { existsSync } from 'node:fs';
import type { SessionInfo } from '@agentclientprotocol/sdk';
import { loadRuntimeBase, sessionStore, type SessionStore } from '@beans/core';
import { configFlags, type CliOptions } from '../options.js';

/** The stored sessions of the workspace holding `cwd`: the same ones `beans sessions list`, `-c` and `-r` see. */
async function storeFor(cli: CliOptions, cwd: string): Promise<{ store: SessionStore; root: string }> {
  const base = await loadRuntimeBase({ cwd, flags: configFlags(cli), trusted: cli.trust || undefined });
  return { store: sessionStore(base), root: base.workspace.root };
}

/** `session/list`: newest first, titled by the first prompt. */
export async function listSessions(cli: CliOptions, cwd: string): Promise<SessionInfo[]> {
  const { store, root } = await storeFor(cli, cwd);
  return store.list().map((session) => ({
    sessionId: session.id,
    cwd: root,
    title: session.firstPrompt || null,
    updatedAt: session.lastActivity,
  }));
}

/** Whether `session/load` has a stored session to load (an exact id, as `session/list` gives). */
export async function sessionExists(cli: CliOptions, cwd: string, sessionId: string): Promise<boolean> {
  if (!/^[\w.-]+$/.test(sessionId)) return false;
  const { store } = await storeFor(cli, cwd);
  return existsSync(store.pathOf(sessionId));
}
