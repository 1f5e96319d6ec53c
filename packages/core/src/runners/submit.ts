import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { execa } from 'execa';
import pg from 'pg';
import { UsageError } from '../errors.js';
import { startDbosSerially } from '../workflows/dbos/start-lock.js';
import { prepareRunnerDatabase, SessionDatabase, type SessionRequest } from './database.js';

// `beans -p "..." --background` with a database: the session is a row of beans.background_sessions
// and a DBOS workflow on the queue `beans_sessions`, partitioned by the provider it names, and the
// command prints its id at once. Which repository it works on is the submitting folder's `origin`
// at its HEAD commit; a runner anywhere clones it from there.

export const SESSIONS_QUEUE = 'beans_sessions';
export const SESSION_WORKFLOW = 'beansSession';
/** The queue partition of a session that names no provider (each runner's own applies). */
export const DEFAULT_PARTITION = 'default';

export interface QueuedSession {
  id: string;
  branch: string;
  origin: string;
  baseCommit: string;
  /** For stderr: uncommitted changes a runner will not see. */
  warnings: string[];
}

interface Repository {
  origin: string;
  head: string;
  subdir: string;
  dirty: boolean;
}

/** The submitting folder's repository: its origin, its HEAD (which origin must hold), and where in it the folder is. */
export async function inspectRepository(cwd: string): Promise<Repository> {
  const run = (args: string[]) => execa('git', args, { cwd, reject: false, stripFinalNewline: true });
  const root = await run(['rev-parse', '--show-toplevel']);
  if (root.exitCode !== 0) throw new UsageError(`${cwd} is not in a git repository: a background session works on a clone of its repository's origin.`);
  const origin = await run(['remote', 'get-url', 'origin']);
  if (origin.exitCode !== 0 || !origin.stdout)
    throw new UsageError("This repository has no remote named origin: runners clone a session's repository from its origin (git remote add origin URL).");
  const head = await run(['rev-parse', 'HEAD']);
  if (head.exitCode !== 0) throw new UsageError('This repository has no commit yet: commit and push, then queue the session.');
  const pushed = await run(['branch', '-r', '--contains', head.stdout]);
  if (!pushed.stdout.trim())
    throw new UsageError(
      `Commit ${head.stdout.slice(0, 12)} (HEAD) is not on origin as far as this clone knows: push it first (git push), then queue the session.`,
    );
  const status = await run(['status', '--porcelain']);
  const subdir = path.relative(root.stdout, cwd);
  return {
    origin: absoluteOrigin(origin.stdout, root.stdout),
    head: head.stdout,
    subdir: subdir.startsWith('..') ? '' : subdir,
    dirty: status.stdout.length > 0,
  };
}

/** A relative path as origin (`../origin.git`) means nothing on a runner: made absolute. URLs stay. */
function absoluteOrigin(origin: string, root: string): string {
  if (/^[\w+.-]+:\/\//.test(origin) || /^[\w.-]+@[\w.-]+:/.test(origin) || path.isAbsolute(origin)) return origin;
  return path.resolve(root, origin);
}

/** DBOS's own tables, made once on a fresh database (a runner's start makes them too). */
export async function ensureDbosTables(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ table: string | null }>("SELECT to_regclass('dbos.workflow_status')::text AS table");
    if (rows[0]?.table) return;
  } finally {
    await client.end().catch(() => {});
  }
  await startDbosSerially(url, () => DBOS.migrate(url));
}

export async function queueSession(options: { databaseUrl: string; cwd: string; prompt: string; request: SessionRequest }): Promise<QueuedSession> {
  const repository = await inspectRepository(options.cwd);
  await prepareRunnerDatabase(options.databaseUrl);
  await ensureDbosTables(options.databaseUrl);
  const id = randomUUID();
  const branch = `beans/${id}`;
  const db = new SessionDatabase(options.databaseUrl);
  const client = await DBOSClient.create({ systemDatabaseUrl: options.databaseUrl, applicationName: 'beans' });
  try {
    await db.insert({
      id,
      title: firstLine(options.prompt),
      prompt: options.prompt,
      origin: repository.origin,
      baseCommit: repository.head,
      subdir: repository.subdir,
      request: options.request,
      submittedBy: `${userInfo().username}@${hostname()}`,
      branch,
    });
    await client.enqueue(
      { queueName: SESSIONS_QUEUE, workflowName: SESSION_WORKFLOW, workflowID: id, queuePartitionKey: options.request.provider ?? DEFAULT_PARTITION },
      id,
    );
  } finally {
    await client.destroy().catch(() => {});
    await db.close();
  }
  const warnings = repository.dirty
    ? [`the runner works from commit ${repository.head.slice(0, 12)}: uncommitted changes in this folder are not part of the session.`]
    : [];
  return { id, branch, origin: repository.origin, baseCommit: repository.head, warnings };
}

export function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
