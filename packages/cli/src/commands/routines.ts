import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError, localRoutineStore, nextCronRun, type Routine, type RoutineRun } from '@beans/core';

export async function routinesAdd(cron: string, prompt: string, flags: { cwd?: string; model?: string; provider?: string }): Promise<number> {
  const cwd = path.resolve(flags.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${flags.cwd} is not a folder.`);
  const routine = await localRoutineStore(process.env).add({
    cron,
    prompt,
    cwd,
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.provider ? { provider: flags.provider } : {}),
  });
  const next = await nextCronRun(routine.cron, new Date());
  process.stdout.write(`Routine ${routine.id}: "${routine.cron}" in ${routine.cwd}${next ? `, next run ${next.toLocaleString('en-GB')}` : ''}.\n`);
  process.stdout.write('beans serve runs it (each run a background session: beans sessions list shows them).\n');
  return 0;
}

interface Listed extends Routine {
  nextRun?: string;
  runs: RoutineRun[];
}

export async function routinesList(flags: { json?: boolean }): Promise<number> {
  const store = localRoutineStore(process.env);
  const listed: Listed[] = [];
  for (const routine of await store.list()) {
    const next = await nextCronRun(routine.cron, new Date()).catch(() => undefined);
    listed.push({ ...routine, ...(next ? { nextRun: next.toISOString() } : {}), runs: (await store.runs(routine.id)).slice(-5) });
  }
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ routines: listed })}\n`);
    return 0;
  }
  if (listed.length === 0) {
    process.stdout.write('No routines. Add one with beans routines add "<cron>" "<prompt>".\n');
    return 0;
  }
  for (const routine of listed) {
    const next = routine.nextRun ? new Date(routine.nextRun).toLocaleString('en-GB') : 'never';
    process.stdout.write(`${routine.id}  ${routine.cron}  next ${next}  ${routine.cwd}${routine.model ? `  (${routine.model})` : ''}\n  ${routine.prompt}\n`);
    for (const run of routine.runs)
      process.stdout.write(
        `  ran ${new Date(run.tick).toLocaleString('en-GB')}: ${run.sessionId ? `session ${run.sessionId}` : (run.error ?? 'starting')} (${run.by})\n`,
      );
  }
  return 0;
}

export async function routinesRemove(id: string): Promise<number> {
  const gone = await localRoutineStore(process.env).remove(id);
  if (!gone) throw new UsageError(`No routine has the id ${id}; beans routines list shows them.`);
  process.stdout.write(`Removed routine ${gone.id} (${gone.prompt}).\n`);
  return 0;
}
