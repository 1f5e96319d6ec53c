import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { onExit } from 'signal-exit';
import { builtin } from '../node-builtins.js';

// node:timers/promises when a wait happens: as a static import it cost every start ~0.4 ms.
const sleep = (ms: number) => builtin('node:timers/promises').setTimeout(ms);

/** Time between SIGTERM and SIGKILL when stopping a command's process group. */
const KILL_GRACE_MS = 2_000;

/** Process groups still running, stopped if Beans itself exits so nothing is left behind. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Every command's processes carry this variable, so they are found even after leaving the group. */
export const RUN_TAG_VARIABLE = 'BEANS_TOOL_RUN';
const RUN_TAG_PREFIX = `beans-${process.pid}-`;

export function newRunTag(): string {
  return `${RUN_TAG_PREFIX}${builtin('node:crypto').randomUUID()}`;
}

/** A tag Beans' exit does not sweep: background tasks the user asked to keep (`--keep-tasks`). */
export function newKeptRunTag(): string {
  return `beans-kept-${builtin('node:crypto').randomUUID()}`;
}

export function trackProcessGroup(pgid: number): void {
  liveGroups.add(pgid);
  sweepAtExit();
}

/**
 * Stops the tracked groups and tagged processes when Beans exits, also when a signal ends it with no
 * handler of its own installed yet (SIGINT or SIGTERM while the session is being built): signal-exit
 * then stops them and re-raises the signal. Call it before spawning what will be tracked: a signal
 * arriving between the spawn and the tracking would otherwise end Beans by the default action, with
 * no handler to run at all (a JavaScript handler runs only after the synchronous tracking).
 */
export function sweepAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  onExit(() => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    // Whatever any command of this process started and left behind (setsid, nohup).
    for (const pid of taggedProcesses(RUN_TAG_PREFIX)) killPid(pid, 'SIGKILL');
  });
}

/**
 * Stops every process that carries `tag` in its environment (SIGTERM, then SIGKILL after a short
 * grace) and returns their pids. A process that cleared its environment cannot be found this way.
 */
export async function killTaggedProcesses(tag: string, graceMs = 500): Promise<number[]> {
  const pids = taggedProcesses(tag);
  if (pids.length === 0) return [];
  for (const pid of pids) killPid(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && taggedProcesses(tag).length > 0) await sleep(25);
  for (const pid of taggedProcesses(tag)) killPid(pid, 'SIGKILL');
  return pids;
}

/** Live processes whose environment has RUN_TAG_VARIABLE starting with `tag`. */
function taggedProcesses(tag: string): number[] {
  if (!hasProc) return [];
  const needle = `${RUN_TAG_VARIABLE}=${tag}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57 || Number(entry) === process.pid) continue;
    try {
      if (processState(entry) === 'Z') continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (environ.split('\0').some((variable) => variable.startsWith(needle))) found.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

function processState(pid: string): string | undefined {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

export function untrackProcessGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Sends a signal to every process in a group; false when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
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
    if (!groupAlive(pgid)) return;
  }
  signalGroup(pgid, 'SIGKILL');
  // SIGKILL cannot be caught; give the kernel a moment to tear the processes down.
  for (let i = 0; i < 40 && groupAlive(pgid); i++) await sleep(25);
}

const hasProc = process.platform === 'linux' && existsSync('/proc/self/stat');

/**
 * True while a process of the group is still running. Dead children whose new parent has not
 * reaped them yet (zombies; some container init processes never reap) do not count: they hold no
 * resources and cannot be killed anyway. Without /proc, any member counts.
 */
export function groupAlive(pgid: number): boolean {
  if (!hasProc) return signalGroup(pgid, 0);
  if (!signalGroup(pgid, 0)) return false;
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so parse after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
