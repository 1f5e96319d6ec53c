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

/**
 * Samples, every 20 ms until `stop()`, the resident memory of `pid` and all its descendants together
 * (from /proc), and returns the peak in MB: a process Beans starts counts against its memory too.
 */
export function sampleTreeRss(pid: number): { stop(): number } {
  let peak = 0;
  const sample = () => {
    const parents = new Map<number, number>();
    const rss = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        parents.set(Number(entry), Number(fields[1]));
        rss.set(Number(entry), Number(fields[21]) * 4096);
      } catch {
        // Gone.
      }
    }
    const inTree = (candidate: number): boolean => {
      for (let current = candidate, hops = 0; current > 1 && hops < 64; current = parents.get(current) ?? 0, hops++) if (current === pid) return true;
      return false;
    };
    let total = 0;
    for (const [candidate, bytes] of rss) if (inTree(candidate)) total += bytes;
    peak = Math.max(peak, total);
  };
  const timer = setInterval(sample, 20);
  sample();
  return {
    stop() {
      clearInterval(timer);
      return peak / (1024 * 1024);
    },
  };
}
