import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stateDir } from '@beans/core';

/** What `beans serve` leaves for `beans attach` and `--background` on this machine: where it is and its token. */
export interface ServerFile {
  url: string;
  token: string;
  pid: number;
}

export function serverFilePath(env: NodeJS.ProcessEnv): string {
  return path.join(stateDir(env), 'server.json');
}

/** Written so only the user can read it (the token lets anyone who has it run commands as the user). */
export function writeServerFile(env: NodeJS.ProcessEnv, contents: ServerFile): string {
  const file = serverFilePath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written whole to a new private file, then renamed over the old one: a second server starting at the
  // same moment makes the newest file win (never EEXIST, never half a file), and a link planted at the
  // path is replaced, not written through.
  const written = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(written, `${JSON.stringify(contents)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(written, file);
  } catch (error) {
    rmSync(written, { force: true });
    throw error;
  }
  return file;
}

/** The running local server, or undefined (none, or one that died without removing its file). */
export function readServerFile(env: NodeJS.ProcessEnv): ServerFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(serverFilePath(env), 'utf8')) as Partial<ServerFile>;
    if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string' || typeof parsed.pid !== 'number') return undefined;
    process.kill(parsed.pid, 0);
    return parsed as ServerFile;
  } catch {
    return undefined;
  }
}

/** Removes the file at exit, if it is still this server's. */
export function removeServerFile(env: NodeJS.ProcessEnv, pid: number): void {
  try {
    const parsed = JSON.parse(readFileSync(serverFilePath(env), 'utf8')) as Partial<ServerFile>;
    if (parsed.pid === pid) rmSync(serverFilePath(env), { force: true });
  } catch {
    // Gone already.
  }
}
