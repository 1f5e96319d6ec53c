import { mkdir } from './async-fs.js';
import path from 'node:path';
import { builtin } from './node-builtins.js';

export interface FileLockOptions {
  /**
   * Folder for the lock itself, on the same file system as the file (a work tree's `.git/beans-tmp`),
   * so a holder killed mid-write leaves no `.lock` folder where the user works. Default: beside the
   * file, whose folder must exist.
   */
  lockDir?: string;
  /** How long to keep trying to get the lock before giving up (default 10 s). */
  waitMs?: number;
}

/** A lock older than this is taken over: its holder was killed (kill -9 leaves the lock behind). */
const STALE_MS = 10_000;

/**
 * Runs `work` while holding a lock on `file` that every Beans process shares (a mkdir lock via
 * proper-lockfile, which also holds on network file systems where O_APPEND and flock do not).
 * For read-modify-write of shared files: settings, memory notes, trust and plugin state, appends.
 */
export async function withFileLock<T>(file: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  // Loaded here: proper-lockfile pulls graceful-fs, which nothing on the start-up path needs.
  const lockfile = await import('proper-lockfile');
  // A CommonJS module: bundled, its functions sit on the default export.
  const lock = lockfile.lock ?? (lockfile as unknown as { default: typeof lockfile }).default.lock;
  let lockfilePath = `${file}.lock`;
  if (options.lockDir) {
    await mkdir(options.lockDir, { recursive: true });
    lockfilePath = path.join(options.lockDir, `lock-${builtin('node:crypto').createHash('sha256').update(path.resolve(file)).digest('hex').slice(0, 32)}`);
  }
  const waitMs = options.waitMs ?? 10_000;
  const release = await lock(file, {
    realpath: false,
    lockfilePath,
    stale: STALE_MS,
    // Short, jittered waits: appends by a dozen processes at once each hold the lock for a few ms.
    retries: { retries: Math.ceil(waitMs / 50), minTimeout: 5, maxTimeout: 100, randomize: true },
  });
  try {
    return await work();
  } finally {
    await release().catch(() => undefined);
  }
}
