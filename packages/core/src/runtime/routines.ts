import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configDir, stateDir } from '../config/paths.js';
import { UsageError } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { randomHex } from '../random-ids.js';
import { checkCron, nextCronRun } from './cron.js';
import type { PermissionMode } from '../permissions/types.js';

/** A prompt run on a schedule with no terminal open: each run is a background session. */
export interface Routine {
  id: string;
  /** 5 fields, local time of the machine that runs it. */
  cron: string;
  prompt: string;
  /** The folder the session works in. */
  cwd: string;
  model?: string;
  provider?: string;
  /** The mode its sessions run in (none: the serving `beans serve`'s, which asks by default). */
  permissionMode?: PermissionMode;
  /** ISO 8601; ticks before it never run. */
  createdAt: string;
}

/** One tick of a routine, claimed by exactly one host, and the session that ran it. */
export interface RoutineRun {
  routineId: string;
  /** ISO 8601: the tick (the cron's time), not when the session started. */
  tick: string;
  /** Who claimed it: `beans serve` pid@host, or a runner's id. */
  by: string;
  sessionId?: string;
  error?: string;
}

/**
 * Where this machine's routines live and how a tick is claimed: routines.json in the user's config
 * folder and one run file per tick, created exclusively, so any number of `beans serve` on the
 * machine run a tick once. The runners' routines are DBOS schedules instead (runners/routines.ts).
 */
export interface RoutineStore {
  list(): Promise<Routine[]>;
  add(input: Omit<Routine, 'id' | 'createdAt'>): Promise<Routine>;
  remove(id: string): Promise<Routine | undefined>;
  /** True for the one caller that gets the tick; false for every other. */
  claim(routineId: string, tick: Date, by: string): Promise<boolean>;
  /** Completes a claimed run with its session (or why none started). */
  settle(run: RoutineRun): Promise<void>;
  runs(routineId: string): Promise<RoutineRun[]>;
}

export function localRoutineStore(env: NodeJS.ProcessEnv): RoutineStore {
  const file = path.join(configDir(env), 'routines.json');
  const runsDir = path.join(stateDir(env), 'routine-runs');
  const read = (): Routine[] => {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { routines?: Routine[] };
      return Array.isArray(parsed.routines) ? parsed.routines : [];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new UsageError(`${file} is not a routines file (${(error as Error).message}); fix or remove it.`);
    }
  };
  const write = (routines: Routine[]) => {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify({ routines }, null, 2)}\n`, { mode: 0o600 });
  };
  const runFile = (routineId: string, tick: string) => path.join(runsDir, routineId, `${tick.replace(/:/g, '-')}.json`);
  const locked = <T>(work: () => Promise<T>) => {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return withFileLock(file, work);
  };
  return {
    list: async () => read(),
    add: (input) =>
      locked(async () => {
        await checkCron(input.cron);
        if (!input.prompt.trim()) throw new UsageError('A routine needs a prompt.');
        const routine: Routine = { id: randomHex(4), ...input, prompt: input.prompt.trim(), cron: input.cron.trim(), createdAt: new Date().toISOString() };
        write([...read(), routine]);
        return routine;
      }),
    remove: (id) =>
      locked(async () => {
        const routines = read();
        const gone = routines.find((routine) => routine.id === id);
        if (gone) write(routines.filter((routine) => routine !== gone));
        return gone;
      }),
    async claim(routineId, tick, by) {
      const target = runFile(routineId, tick.toISOString());
      mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      try {
        // Exclusive create: of all the hosts that reach this tick, one makes the file.
        writeFileSync(target, `${JSON.stringify({ routineId, tick: tick.toISOString(), by } satisfies RoutineRun)}\n`, { flag: 'wx', mode: 0o600 });
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
    },
    async settle(run) {
      writeFileSync(runFile(run.routineId, run.tick), `${JSON.stringify(run)}\n`, { mode: 0o600 });
    },
    async runs(routineId) {
      const dir = path.join(runsDir, routineId);
      let names: string[];
      try {
        names = readdirSync(dir).filter((name) => name.endsWith('.json'));
      } catch {
        return [];
      }
      return names.sort().flatMap((name) => {
        try {
          return [JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as RoutineRun];
        } catch {
          return [];
        }
      });
    },
  };
}

/** The newest tick of `routine` in (after, until], if any: a host that slept runs the latest missed tick once, never a backlog. */
async function latestTick(routine: Routine, after: Date, until: Date): Promise<Date | undefined> {
  const created = new Date(routine.createdAt);
  let from = after > created ? after : created;
  let found: Date | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const next = await nextCronRun(routine.cron, from);
    if (!next || next > until) break;
    found = next;
    from = next;
  }
  return found;
}

export interface RoutineSchedulerInput {
  store: RoutineStore;
  /** Who claims ticks, e.g. `serve:1234@host`. */
  by: string;
  /** Starts the routine's background session; returns its id. */
  run(routine: Routine, tick: Date): Promise<string>;
  onError?(routine: Routine, error: unknown): void;
}

const MAX_SLEEP_MS = 30_000;

/**
 * Runs routines in this process (`beans serve`): at each tick of each routine, the host that claims
 * the tick starts one background session. Routines added or removed while it runs are seen within
 * 30 seconds (it reads the store at every wake).
 */
export function startRoutineScheduler(input: RoutineSchedulerInput): { stop(): void } {
  let checked = new Date();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function wake(): Promise<void> {
    const now = new Date();
    const routines = await input.store.list().catch(() => []);
    for (const routine of routines) {
      const tick = await latestTick(routine, checked, now).catch(() => undefined);
      if (!tick || !(await input.store.claim(routine.id, tick, input.by).catch(() => false))) continue;
      const run: RoutineRun = { routineId: routine.id, tick: tick.toISOString(), by: input.by };
      try {
        run.sessionId = await input.run(routine, tick);
      } catch (error) {
        run.error = error instanceof Error ? error.message : String(error);
        input.onError?.(routine, error);
      }
      await input.store.settle(run).catch(() => undefined);
    }
    checked = now;
    if (stopped) return;
    const nexts = await Promise.all(routines.map((routine) => nextCronRun(routine.cron, now).catch(() => undefined)));
    const soonest = Math.min(...nexts.map((next) => next?.getTime() ?? Infinity));
    timer = setTimeout(() => void wake(), Math.max(50, Math.min(MAX_SLEEP_MS, soonest - Date.now() + 20)));
  }

  void wake();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
