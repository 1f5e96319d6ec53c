import { createHash } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { DBOS, DBOSClient, type WorkflowSchedule } from '@dbos-inc/dbos-sdk';
import { execa } from 'execa';
import { UsageError } from '../errors.js';
import { randomHex } from '../random-ids.js';
import { checkCron } from '../runtime/cron.js';
import { prepareRunnerDatabase, SessionDatabase, type BackgroundState, type SessionRequest, type SessionResult } from './database.js';
import { DEFAULT_PARTITION, ensureDbosTables, firstLine, inspectRepository, SESSIONS_QUEUE } from './submit.js';

// Routines on the runners (issue 61): a routine is a DBOS schedule (`routine-<id>`) in the runners'
// database, its context the routine itself. Every runner's DBOS watches the schedules, and at each
// tick the one workflow `sched-routine-<id>-<tick>` is enqueued, whichever runners reach the tick
// (DBOS's exactly-once per tick across the fleet). That workflow records the run and queues the
// tick's background session, whose id is derived from the routine and the tick, so even a replayed
// tick starts one session. The session works on the routine's branch as origin has it at the tick.

const ROUTINE_WORKFLOW = 'beansRoutine';
const SCHEDULE_PREFIX = 'routine-';

/** A routine as the runners keep it: where its sessions work is origin's branch, not a local folder. */
export interface RunnerRoutine {
  id: string;
  cron: string;
  /** The IANA time zone the cron is read in: that of the machine that added it (runners may be anywhere). */
  timezone: string;
  prompt: string;
  origin: string;
  /** The branch of origin each run starts from, at its commit at the tick. */
  branch: string;
  /** Where in the repository the session works. */
  subdir: string;
  /** The folder it was added from (shown only). */
  cwd: string;
  request: SessionRequest;
  addedBy: string;
  createdAt: string;
}

/** One tick's run: its session, as the session list has it. */
export interface RunnerRoutineRun {
  routineId: string;
  tick: string;
  sessionId: string;
  /** The runner whose DBOS fired the tick. */
  by: string;
  state?: BackgroundState;
  exitCode?: number;
}

/** The background session of a routine's tick: one id per tick, on every runner and every replay. */
function routineSessionId(routineId: string, tick: Date): string {
  const hex = createHash('sha256').update(`beans-routine:${routineId}:${tick.toISOString()}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The commit `branch` of `origin` is at now, or why it cannot be had. */
async function branchHead(origin: string, branch: string): Promise<{ commit: string } | { error: string }> {
  const listed = await execa('git', ['ls-remote', '--', origin, `refs/heads/${branch}`], { reject: false, timeout: 60_000, stdin: 'ignore' });
  const commit = listed.exitCode === 0 ? /^[0-9a-f]{40,64}/.exec(listed.stdout)?.[0] : undefined;
  if (commit) return { commit };
  return {
    error: `The routine's branch ${branch} cannot be read from ${origin}${listed.stderr ? `: ${listed.stderr.trim().split('\n')[0]}` : ' (no such branch)'}.`,
  };
}

/** Records the tick's session (queued, or failed when its branch could not be read) and the run; nothing twice. */
async function recordRun(
  db: SessionDatabase,
  routine: RunnerRoutine,
  tick: Date,
  sessionId: string,
  head: { commit: string } | { error: string },
): Promise<void> {
  const branch = `beans/${sessionId}`;
  const failed = 'error' in head;
  const result: SessionResult | null = failed ? { text: '', branch, change: 'no changes', files: [], error: head.error } : null;
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO beans.background_sessions (id, title, prompt, origin, base_commit, subdir, request, submitted_by, branch, state, exit_code, result)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
      [
        sessionId,
        firstLine(routine.prompt),
        routine.prompt,
        routine.origin,
        failed ? '' : head.commit,
        routine.subdir,
        routine.request,
        `routine ${routine.id} (${routine.addedBy})`,
        branch,
        failed ? 'failed' : 'queued',
        failed ? 1 : null,
        result,
      ],
    );
    await client.query('INSERT INTO beans.routine_runs (routine_id, tick, session_id, fired_by) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      routine.id,
      tick,
      sessionId,
      DBOS.executorID,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Registers the tick's workflow on a runner (before DBOS launches): it queues the session workflow `sessionWorkflow`. */
export function registerRoutineWorkflow(db: SessionDatabase, sessionWorkflow: (sessionId: string) => Promise<unknown>): void {
  DBOS.registerWorkflow(
    async (scheduled: Date, routine: RunnerRoutine): Promise<void> => {
      const tick = new Date(scheduled);
      // A runner sees a removed schedule only at its next poll (up to 30 s): a tick fired meanwhile runs nothing.
      const kept = await DBOS.runStep(async () => (await DBOS.getSchedule(`${SCHEDULE_PREFIX}${routine.id}`)) !== null, { name: 'stillScheduled' });
      if (!kept) return;
      const sessionId = routineSessionId(routine.id, tick);
      const head = await DBOS.runStep(() => branchHead(routine.origin, routine.branch), { name: 'branchHead' });
      await DBOS.runStep(() => recordRun(db, routine, tick, sessionId, head), { name: 'recordRun' });
      if ('error' in head) return;
      await DBOS.startWorkflow(sessionWorkflow, {
        workflowID: sessionId,
        queueName: SESSIONS_QUEUE,
        enqueueOptions: { queuePartitionKey: routine.request.provider ?? DEFAULT_PARTITION },
      })(sessionId);
    },
    { name: ROUTINE_WORKFLOW },
  );
}

/** The branch a routine added from `cwd` follows: the upstream's, else the checked-out one; origin must have it. */
async function followedBranch(cwd: string): Promise<string> {
  const run = (args: string[]) => execa('git', args, { cwd, reject: false, stripFinalNewline: true, stdin: 'ignore' });
  const upstream = await run(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']);
  if (upstream.exitCode === 0 && upstream.stdout.startsWith('origin/')) return upstream.stdout.slice('origin/'.length);
  const current = await run(['symbolic-ref', '--short', 'HEAD']);
  if (current.exitCode !== 0) throw new UsageError("HEAD is detached: check out the branch the routine should start from (its runs use origin's copy of it).");
  return current.stdout;
}

/** `beans routines add|list|remove` with a database: the routines as DBOS schedules, their runs as background sessions. */
export class RunnerRoutines {
  private constructor(
    private readonly db: SessionDatabase,
    private readonly client: DBOSClient,
  ) {}

  static async open(url: string): Promise<RunnerRoutines> {
    // pg warns about DBOS's concurrent use of one client; nothing a user can act on (as the runner).
    process.noDeprecation = true;
    await prepareRunnerDatabase(url);
    await ensureDbosTables(url);
    return new RunnerRoutines(new SessionDatabase(url), await DBOSClient.create({ systemDatabaseUrl: url, applicationName: 'beans' }));
  }

  async add(input: { cwd: string; cron: string; prompt: string; request: SessionRequest }): Promise<RunnerRoutine> {
    await checkCron(input.cron);
    if (!input.prompt.trim()) throw new UsageError('A routine needs a prompt.');
    const repository = await inspectRepository(input.cwd);
    const branch = await followedBranch(input.cwd);
    const head = await branchHead(repository.origin, branch);
    if ('error' in head) throw new UsageError(`${head.error} Push the branch first (git push -u origin ${branch}).`);
    const routine: RunnerRoutine = {
      id: randomHex(4),
      cron: input.cron.trim().split(/\s+/).join(' '),
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      prompt: input.prompt.trim(),
      origin: repository.origin,
      branch,
      subdir: repository.subdir,
      cwd: input.cwd,
      request: input.request,
      addedBy: `${userInfo().username}@${hostname()}`,
      createdAt: new Date().toISOString(),
    };
    try {
      await this.client.createSchedule({
        scheduleName: `${SCHEDULE_PREFIX}${routine.id}`,
        workflowName: ROUTINE_WORKFLOW,
        schedule: routine.cron,
        context: routine,
        options: { cronTimezone: routine.timezone },
      });
    } catch (error) {
      throw new UsageError(`The runners' scheduler refused "${routine.cron}": ${(error as Error).message}`);
    }
    return routine;
  }

  async list(): Promise<RunnerRoutine[]> {
    const schedules = await this.client.listSchedules({ scheduleNamePrefix: SCHEDULE_PREFIX, workflowName: ROUTINE_WORKFLOW });
    return schedules.map((schedule: WorkflowSchedule) => schedule.context as RunnerRoutine).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async remove(id: string): Promise<RunnerRoutine | undefined> {
    const schedule = await this.client.getSchedule(`${SCHEDULE_PREFIX}${id}`);
    if (!schedule) return undefined;
    await this.client.deleteSchedule(schedule.scheduleName);
    return schedule.context as RunnerRoutine;
  }

  /** The newest runs of a routine, oldest first, with their sessions' states. */
  async runs(routineId: string, limit = 5): Promise<RunnerRoutineRun[]> {
    const { rows } = await this.db.pool.query<{ tick: Date; session_id: string; fired_by: string; state: BackgroundState | null; exit_code: number | null }>(
      `SELECT r.tick, r.session_id, r.fired_by, s.state, s.exit_code FROM beans.routine_runs r
       LEFT JOIN beans.background_sessions s ON s.id = r.session_id WHERE r.routine_id = $1 ORDER BY r.tick DESC LIMIT $2`,
      [routineId, limit],
    );
    return rows.reverse().map((row) => ({
      routineId,
      tick: row.tick.toISOString(),
      sessionId: row.session_id,
      by: row.fired_by,
      ...(row.state ? { state: row.state } : {}),
      ...(row.exit_code !== null ? { exitCode: row.exit_code } : {}),
    }));
  }

  async close(): Promise<void> {
    await this.client.destroy().catch(() => {});
    await this.db.close();
  }
}
