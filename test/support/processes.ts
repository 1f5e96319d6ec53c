// Processes on this machine, read from /proc, for tests that check Beans leaves nothing running.
import { readdirSync, readFileSync } from 'node:fs';

/** Live processes whose command line contains `marker`: pid and command line (so a failure names them). */
export function processesNaming(marker: string): Array<{ pid: number; command: string }> {
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      if (command.includes(marker)) found.push({ pid: Number(entry), command });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** The command lines still naming `marker` after giving dying processes up to `graceMs` to go. */
export async function processesLeft(marker: string, graceMs: number): Promise<string[]> {
  await eventually(() => processesNaming(marker).length === 0, graceMs);
  return processesNaming(marker).map((process) => process.command);
}

/** Whether `check` held within `timeoutMs` (polled every 50 ms). */
export async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (check()) return true;
  }
  return check();
}
