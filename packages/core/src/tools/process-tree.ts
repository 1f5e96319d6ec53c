import { setTimeout as sleep } from 'node:timers/promises';

/** Time between SIGTERM and SIGKILL when stopping a command's process group. */
export const KILL_GRACE_MS = 2_000;

/** Process groups still running, stopped if Beans itself exits so nothing is left behind. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackProcessGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
}

export function untrackProcessGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Sends a signal to every process in a group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a whole process group (a shell and everything it started, background jobs included):
 * SIGTERM, then SIGKILL after a grace period, and waits until the group is gone.
 */
export async function killProcessGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(25);
    if (!signalGroup(pgid, 0)) return;
  }
  signalGroup(pgid, 'SIGKILL');
  // SIGKILL cannot be caught; give the kernel a moment to tear the processes down.
  for (let i = 0; i < 40 && signalGroup(pgid, 0); i++) await sleep(25);
}
