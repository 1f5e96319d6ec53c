import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError, localRoutineStore, nextCronRun, parsePermissionMode, type Routine, type RoutineRun } from '@beans/core';
import type { RunnerRoutine, RunnerRoutineRun, RunnerRoutines } from '@beans/core/runners';
import { loadBase } from '../bootstrap.js';
import type { CliOptions } from '../options.js';
import { stripTerminalControls } from '../output/terminal-safe.js';

// `beans routines`: with a database configured (BEANS_DATABASE_URL or workflows.databaseUrl) the
// routines are the runners' (DBOS schedules, each tick once across the fleet); else they are this
// machine's, run by `beans serve`.

interface RoutineFlags {
  cwd?: string;
  model?: string;
  provider?: string;
}

async function runnerRoutines(options: CliOptions): Promise<RunnerRoutines | undefined> {
  const url = (await loadBase(options)).config.values.workflows.databaseUrl;
  if (!url) return undefined;
  const { RunnerRoutines } = await import('@beans/core/runners');
  return RunnerRoutines.open(url);
}

async function withRunners<T>(options: CliOptions, job: (routines: RunnerRoutines) => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
  const routines = await runnerRoutines(options);
  if (!routines) return otherwise();
  try {
    return await job(routines);
  } finally {
    await routines.close();
  }
}

const when = (date: Date | undefined) => (date ? date.toLocaleString('en-GB') : 'never');

export async function routinesAdd(options: CliOptions, cron: string, prompt: string, flags: RoutineFlags): Promise<number> {
  const cwd = path.resolve(flags.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${flags.cwd} is not a folder.`);
  // The program's own -m/--model, --provider and --permission-mode take these words wherever they
  // stand on the line (commander gives an option both define to the program): read from both.
  const model = flags.model ?? options.model;
  const provider = flags.provider ?? options.provider;
  const permissionMode = options.permissionMode ? parsePermissionMode(options.permissionMode) : undefined;
  const choices = { ...(model ? { model } : {}), ...(provider ? { provider } : {}), ...(permissionMode ? { permissionMode } : {}) };
  return withRunners(
    options,
    async (routines) => {
      const routine = await routines.add({ cwd, cron, prompt, request: choices });
      const next = await nextCronRun(routine.cron, new Date(), routine.timezone);
      process.stdout.write(
        `Routine ${routine.id}: "${routine.cron}" (${routine.timezone}) on ${routine.branch} of ${routine.origin}, next run ${when(next)}.\n` +
          'The runners run it, each tick once (each run a background session: beans sessions list shows them).\n',
      );
      return 0;
    },
    async () => {
      const routine = await localRoutineStore(process.env).add({ cron, prompt, cwd, ...choices });
      const next = await nextCronRun(routine.cron, new Date());
      process.stdout.write(`Routine ${routine.id}: "${routine.cron}" in ${routine.cwd}, next run ${when(next)}.\n`);
      process.stdout.write('beans serve runs it (each run a background session: beans sessions list shows them).\n');
      return 0;
    },
  );
}

type Listed = (Routine & { nextRun?: string; runs: RoutineRun[] }) | (RunnerRoutine & { nextRun?: string; runs: RunnerRoutineRun[] });

export async function routinesList(options: CliOptions, flags: { json?: boolean }): Promise<number> {
  const listed: Listed[] = [];
  const withNext = async <T extends { cron: string; timezone?: string }>(routine: T) => {
    const next = await nextCronRun(routine.cron, new Date(), routine.timezone).catch(() => undefined);
    return { ...routine, ...(next ? { nextRun: next.toISOString() } : {}) };
  };
  await withRunners(
    options,
    async (routines) => {
      for (const routine of await routines.list()) listed.push({ ...(await withNext(routine)), runs: await routines.runs(routine.id) });
    },
    async () => {
      const store = localRoutineStore(process.env);
      for (const routine of await store.list()) listed.push({ ...(await withNext(routine)), runs: (await store.runs(routine.id)).slice(-5) });
    },
  );
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ routines: listed })}\n`);
    return 0;
  }
  if (listed.length === 0) {
    process.stdout.write('No routines. Add one with beans routines add "<cron>" "<prompt>".\n');
    return 0;
  }
  for (const routine of listed) {
    const onRunners = 'branch' in routine;
    const where = onRunners ? `${routine.branch} of ${routine.origin}` : routine.cwd;
    const chosen = onRunners ? [routine.request.model, routine.request.permissionMode] : [routine.model, routine.permissionMode];
    const shown = chosen.filter(Boolean).join(', ');
    const next = routine.nextRun ? new Date(routine.nextRun) : undefined;
    process.stdout.write(
      `${routine.id}  ${routine.cron}  next ${when(next)}  ${where}${shown ? `  (${stripTerminalControls(shown)})` : ''}\n  ${stripTerminalControls(routine.prompt)}\n`,
    );
    for (const run of routine.runs) {
      const outcome = run.sessionId
        ? `session ${run.sessionId}${'state' in run && run.state ? ` ${run.state}` : ''}`
        : ('error' in run && run.error) || 'starting';
      process.stdout.write(`  ran ${new Date(run.tick).toLocaleString('en-GB')}: ${outcome} (${run.by})\n`);
    }
  }
  return 0;
}

export async function routinesRemove(options: CliOptions, id: string): Promise<number> {
  const gone = await withRunners(
    options,
    (routines) => routines.remove(id),
    () => localRoutineStore(process.env).remove(id),
  );
  if (!gone) throw new UsageError(`No routine has the id ${id}; beans routines list shows them.`);
  process.stdout.write(`Removed routine ${gone.id} (${gone.prompt}).\n`);
  return 0;
}
