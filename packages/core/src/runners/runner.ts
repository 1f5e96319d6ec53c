import { DBOS, DBOSClient, type DLogger } from '@dbos-inc/dbos-sdk';
import { isTrusted, setTrustDecision } from '../config/trust.js';
import { ConfigError } from '../errors.js';
import { describeDatabase } from '../workflows/dbos/database.js';
import { startDbosSerially } from '../workflows/dbos/start-lock.js';
import { prepareRunnerDatabase, SessionDatabase } from './database.js';
import type { RunnerPolicy } from './policy.js';
import { BEAT_MS, RunnerRegistry } from './registry.js';
import { registerRoutineWorkflow } from './routines.js';
import { runBackgroundSession, type OpenAgent, type RunningSession, type SessionRunResult } from './session-run.js';
import { SESSION_WORKFLOW, SESSIONS_QUEUE } from './submit.js';
import { Worktrees, type GitIdentity } from './worktree.js';

// `beans runner`: a DBOS process that takes background sessions from the queue `beans_sessions`
// (partitioned by provider: `maxSessionsPerProvider` bounds each provider across every runner, and
// `concurrency` bounds what one runner takes at once) and runs each as a DBOS workflow whose steps
// are the session's model answers and tool calls. It beats every second; a runner silent for
// `recoveryAfterMs` is declared dead by another, which puts its sessions back on the queue, where
// DBOS gives each to one runner that replays it from its recorded steps. SIGTERM drains. It also
// fires the routines' ticks (routines.ts), each once across the fleet.

export interface RunnerOptions {
  databaseUrl: string;
  id: string;
  /** Sessions this runner runs at once (DBOS keeps one such limit for all runners of a database). */
  concurrency: number;
  /** Sessions running at once on each provider, across every runner. */
  maxSessionsPerProvider: number;
  workdir: string;
  policy: RunnerPolicy;
  trustWorktrees: boolean;
  /** A runner silent this long is dead: its sessions go to the others. */
  recoveryAfterMs: number;
  identity: GitIdentity;
  openAgent: OpenAgent;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

const APP_VERSION_PREFIX = 'beans-';

export interface Runner {
  readonly where: string;
  /** Takes no new session; after `graceMs` hands those still running to other runners; then disconnects. Resolves with how many it handed over. */
  drain(graceMs: number): Promise<number>;
  close(): Promise<void>;
}

/** Checks the database, registers the runner, launches DBOS (serially with other processes starting) and starts taking sessions. */
export async function startRunner(options: RunnerOptions, version: string): Promise<Runner> {
  await prepareRunnerDatabase(options.databaseUrl);
  const db = new SessionDatabase(options.databaseUrl);
  const registry = new RunnerRegistry(db, options.id);
  try {
    await registry.register(options.recoveryAfterMs);
  } catch (error) {
    await db.close();
    throw error;
  }
  const worktrees = new Worktrees(options.workdir, options.identity);
  // The worktrees are trusted only as the runner's settings say: a folder the user trusted above
  // the work folder (`beans trust ~`) must not trust them too.
  if (!options.trustWorktrees && isTrusted(worktrees.sessionsDir, options.env)) {
    await setTrustDecision(worktrees.sessionsDir, 'untrusted', options.env);
    options.log(
      `marked ${worktrees.sessionsDir} untrusted: a trusted folder above it would have trusted the sessions' worktrees (runners.trustWorktrees is off)`,
    );
  }
  const running = new Map<string, RunningSession>();
  const context = {
    db,
    worktrees,
    runner: options.id,
    policy: options.policy,
    trustWorktrees: options.trustWorktrees,
    openAgent: options.openAgent,
    log: options.log,
    running,
  };
  const logger: DLogger = {
    info: () => {},
    debug: () => {},
    warn: (entry) => options.log(`dbos: ${text(entry)}`),
    error: (entry) => options.log(`dbos: ${text(entry)}`),
  };
  // pg warns about DBOS's concurrent use of one client; nothing a user can act on.
  process.noDeprecation = true;
  DBOS.setConfig({
    name: 'beans',
    systemDatabaseUrl: options.databaseUrl,
    applicationVersion: `${APP_VERSION_PREFIX}${version}`,
    executorID: options.id,
    logger,
    listenQueues: [SESSIONS_QUEUE],
  });
  const sessionWorkflow = DBOS.registerWorkflow((sessionId: string): Promise<SessionRunResult> => runBackgroundSession(context, sessionId), {
    name: SESSION_WORKFLOW,
  });
  // Routines' ticks: DBOS fires each tick of each routine once across every runner of the database.
  registerRoutineWorkflow(db, sessionWorkflow);
  let client!: DBOSClient;
  try {
    await startDbosSerially(options.databaseUrl, async () => {
      // Launching recovers what this runner's id had in flight (a runner started again after a kill).
      await DBOS.launch();
      client = await DBOSClient.create({ systemDatabaseUrl: options.databaseUrl, applicationName: 'beans', logger });
      const queue = await DBOS.registerQueue(SESSIONS_QUEUE, { minPollingIntervalMs: 100, onConflict: 'never_update' });
      if ((await queue.getPartitionConcurrency()) !== options.maxSessionsPerProvider) await queue.setPartitionConcurrency(options.maxSessionsPerProvider);
      const stored = await queue.getWorkerConcurrency();
      if (stored !== options.concurrency) {
        if (stored !== undefined)
          options.log(
            `every runner now takes at most ${options.concurrency} sessions at once (it was ${stored}): DBOS keeps one such limit for all runners of a database.`,
          );
        await queue.setWorkerConcurrency(options.concurrency);
      }
    });
  } catch (error) {
    await DBOS.shutdown().catch(() => {});
    await db.close();
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`The runner could not start DBOS on ${describeDatabase(options.databaseUrl)}: ${(error as Error).message}`);
  }

  // Sessions of a dead runner go back on the queue; DBOS gives each to one runner.
  const recover = async () => {
    for (const dead of await registry.claimDead(options.recoveryAfterMs)) {
      const pending = await client.listWorkflows({ executorId: dead, status: 'PENDING', queueName: SESSIONS_QUEUE, loadInput: false, loadOutput: false });
      for (const workflow of pending) await db.pool.query('UPDATE beans.background_sessions SET claim = NULL WHERE id = $1', [workflow.workflowID]);
      if (pending.length > 0)
        await client.resumeWorkflows(
          pending.map((workflow) => workflow.workflowID),
          { queueName: SESSIONS_QUEUE },
        );
      options.log(`runner ${dead} stopped beating; ${pending.length === 1 ? '1 session goes' : `${pending.length} sessions go`} back on the queue`);
    }
  };
  let ticking = false;
  const tick = async () => {
    if (ticking) return;
    ticking = true;
    try {
      if (!(await registry.beat())) {
        // Declared dead (a long pause): its sessions went elsewhere; stop them here, and take new ones.
        options.log(`runner ${options.id} was declared dead by another runner; its sessions go on there`);
        for (const session of running.values()) session.stop();
        await registry.register(0);
      }
      await recover();
    } catch (error) {
      options.log(`runner ${options.id}: ${(error as Error).message}`);
    } finally {
      ticking = false;
    }
  };
  const timer = setInterval(() => void tick(), BEAT_MS);
  void tick();

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    await DBOS.shutdown().catch(() => {});
    await registry.setState('stopped').catch(() => {});
    await client.destroy().catch(() => {});
    await db.close();
  };
  return {
    where: describeDatabase(options.databaseUrl),
    async drain(graceMs) {
      await registry.setState('draining');
      let handedOver = 0;
      const handOver = setTimeout(() => {
        void (async () => {
          for (const [id, session] of running) {
            // Queued again first, so this runner's late writes are refused (DBOS's owner, Beans' claim), then stopped here.
            await db.release(id, session.claim).catch(() => {});
            await client.resumeWorkflow(id, { queueName: SESSIONS_QUEUE }).catch(() => {});
            session.stop();
            handedOver++;
          }
        })();
      }, graceMs);
      try {
        await DBOS.shutdown({ workflowCompletionTimeoutMS: graceMs + 20_000 });
      } finally {
        clearTimeout(handOver);
        await close();
      }
      return handedOver;
    },
    close,
  };
}

function text(entry: unknown): string {
  if (entry instanceof Error) return entry.message;
  return typeof entry === 'string' ? entry : JSON.stringify(entry);
}
