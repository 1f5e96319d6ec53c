import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** Held locks, released if the process exits without closing its sessions. */
const held = new Set<string>();
let exitHook = false;

/**
 * Takes the lock of a session file: `<file>.lock`, created exclusively and holding the owner's pid.
 * A live owner means the session is in use (a UsageError, exit 2); a dead owner's lock is taken over.
 * Returns the release function.
 */
export function lockSession(file: string, id: string): () => void {
  const lockFile = `${file}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(lockFile);
      if (!exitHook) {
        exitHook = true;
        process.once('exit', () => held.forEach(removeQuietly));
      }
      return () => {
        held.delete(lockFile);
        removeQuietly(lockFile);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readQuietly(lockFile));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new UsageError(`Session ${id} is in use by another Beans process (pid ${owner}). Wait for it to finish, or start a new session.`);
      }
      removeQuietly(lockFile); // its owner is gone: the lock is stale
    }
  }
  throw new UsageError(`Session ${id} is being opened by another Beans process; try again.`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readQuietly(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
